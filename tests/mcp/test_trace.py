"""Every tools/list served leaves a trajectory event, and `facade catalogue` reads it back."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
import structlog.testing

from facade.catalogue.schema import compact_json
from facade.catalogue.served import Served
from facade.catalogue.trace import Trace, last_served, rotated, trace_files
from tests.support import DEV, ServerProcess, mcp_client, raw_list
from tests.test_economy import facade

pytestmark = pytest.mark.anyio
ENVELOPE = {"traceSchema", "schemaVersion", "traceId", "type", "ts", "seq", "data"}


class TestTrace:
    """The served-catalogue trace records what was actually served."""

    async def test_list_is_traced_and_reported(self, server: ServerProcess, era: str) -> None:
        conversation = f"trace-{era}"
        async with mcp_client(server.url, DEV["francis"], mode=era, headers={"X-Conversation-Id": conversation}) as client:
            tools = (await client.list_tools()).tools
        trace = server.workdir / "data" / "trace.jsonl"
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        mine = [e for e in events if e["data"].get("conversation") == conversation]
        assert mine and set(mine[-1]) == ENVELOPE and mine[-1]["type"] == "context.compiled"
        data = mine[-1]["data"]
        assert data["agent"] == "francis" and data["tools"] == [t.name for t in tools]
        assert data["protocol"] == ("2025-11-25" if era == "legacy" else "2026-07-28")
        # The hash is of the tools array exactly as it crossed the wire (read raw, no SDK parsing).
        text = compact_json(raw_list(server.url, DEV["francis"], era, conversation))
        assert data["bytes"] == len(text.encode()) and data["sha256"] == hashlib.sha256(text.encode()).hexdigest()

        done = facade(server.workdir, "catalogue", "--agent", "francis", "--conversation", conversation, "--json")
        served = json.loads(done.stdout)["agent"]["served"]
        assert served["tools"] == data["tools"] and served["sha256"] == data["sha256"]


def _served(tools: int = 3) -> Served:
    names = tuple(f"garden.plant_{i}" for i in range(tools))
    return Served(names, tuple({"name": n, "description": "Plant one.", "inputSchema": {"type": "object"}} for n in names))


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: str, events: int, max_bytes: int, keep: int, agent: str) -> None:
    """One process's share of the shared-file test: `events` listings traced as `agent`."""
    trace = Trace(Path(path), max_bytes=max_bytes, keep=keep)
    for _ in range(events):
        trace.served(_served(), agent=agent, conversation=None, era="2026-07-28", runtime=False)
    trace.close()


class TestRotation:
    """The trace is bounded: past its size it moves to `.1` (older ones shift up, the oldest
    beyond `keep` is dropped) and a new file begins; the report still finds what was served."""

    def test_past_its_size_the_trace_rotates_and_keeps_two(self, tmp_path: Path) -> None:
        path = tmp_path / "trace.jsonl"
        trace = Trace(path, max_bytes=4 * 1024, keep=2)
        for _ in range(60):
            trace.served(_served(), agent="francis", conversation=None, era="2026-07-28", runtime=False)
        trace.close()
        files = list(trace_files(path))
        assert files[-2:] == [rotated(path, 1), rotated(path, 2)] and not rotated(path, 3).exists()
        longest = max(len(line) + 1 for f in files for line in f.read_text().splitlines())
        # A file is rotated by the event that takes it to the limit: never more than one over.
        assert all(4 * 1024 <= f.stat().st_size < 4 * 1024 + longest for f in files[-2:])
        seqs = [e["seq"] for f in reversed(files) for e in _events(f)]
        # Newest last and unbroken: what was dropped is the oldest, never a middle piece.
        assert seqs == list(range(seqs[0], 61)) and seqs[0] > 1

    def test_the_report_reads_the_rotated_files(self, tmp_path: Path) -> None:
        path = tmp_path / "trace.jsonl"
        trace = Trace(path, max_bytes=2 * 1024, keep=3)
        trace.served(_served(5), agent="francis", conversation="kept", era="2026-07-28", runtime=False)
        for _ in range(8):
            trace.served(_served(), agent="kai", conversation=None, era="2026-07-28", runtime=False)
        trace.close()
        assert all(e["data"]["agent"] == "kai" for e in _events(path))  # francis's event was rotated away
        assert any(e["data"]["agent"] == "francis" for f in trace_files(path) for e in _events(f))
        event = last_served(path, "francis", "kept")
        assert event is not None and event["data"]["toolCount"] == 5

    def test_never_rotated_with_zero(self, tmp_path: Path) -> None:
        path = tmp_path / "trace.jsonl"
        trace = Trace(path, max_bytes=0, keep=1)
        for _ in range(40):
            trace.served(_served(), agent="francis", conversation=None, era="2026-07-28", runtime=False)
        trace.close()
        assert list(trace_files(path)) == [path] and len(_events(path)) == 40

    def test_a_trace_moved_away_starts_a_new_file(self, tmp_path: Path) -> None:
        path, moved = tmp_path / "trace.jsonl", tmp_path / "trace-monday.jsonl"
        trace = Trace(path)
        trace.served(_served(), agent="francis", conversation="before", era="2026-07-28", runtime=False)
        path.rename(moved)  # as logrotate or an operator would
        trace.served(_served(), agent="francis", conversation="after", era="2026-07-28", runtime=False)
        trace.close()
        assert [e["data"]["conversation"] for e in _events(moved)] == ["before"]
        assert [e["data"]["conversation"] for e in _events(path)] == ["after"]

    def test_a_rotation_that_fails_leaves_the_listing_served(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        path = tmp_path / "trace.jsonl"
        trace = Trace(path, max_bytes=1024, keep=1)

        def refused(source: Any, target: Any) -> None:
            raise PermissionError(13, "Permission denied", str(source))

        monkeypatch.setattr(os, "replace", refused)
        with structlog.testing.capture_logs() as logged:
            for _ in range(10):  # each past the limit: the first tries, fails once, and stops trying
                trace.served(_served(), agent="francis", conversation=None, era="2026-07-28", runtime=False)
        trace.close()
        assert len(_events(path)) == 10 and not rotated(path, 1).exists()
        assert [entry["event"] for entry in logged] == ["trace.not_rotated"] and "Permission denied" in logged[0]["error"]

    def test_a_pipe_is_written_to_never_rotated(self, tmp_path: Path) -> None:
        """A trace sent to a FIFO (or `/dev/null`) has no size to bound: nothing is renamed."""
        path = tmp_path / "trace.fifo"
        os.mkfifo(path)
        reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # open first: opening to write never waits
        try:
            trace = Trace(path, max_bytes=1, keep=1)
            for _ in range(5):
                trace.served(_served(), agent="francis", conversation=None, era="2026-07-28", runtime=False)
            trace.close()
            received = os.read(reader, 1 << 16)  # 5 events, well within a pipe's buffer
        finally:
            os.close(reader)
        assert len(received.splitlines()) == 5 and sorted(p.name for p in tmp_path.iterdir()) == ["trace.fifo"]

    def test_processes_sharing_the_file_lose_no_event(self, tmp_path: Path) -> None:
        """`--workers` and `facade stdio` beside `facade serve` append to one trace: whichever
        rotates it, every event of each lands once, whole, in one of the files."""
        path = tmp_path / "trace.jsonl"
        context = multiprocessing.get_context("spawn")
        writers = [context.Process(target=_write, args=(str(path), 150, 3 * 1024, 1000, agent)) for agent in ("a", "b", "c")]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(120)
            assert writer.exitcode == 0
        files = list(trace_files(path))
        assert len(files) > 10  # rotated many times, by all three
        by_agent: dict[str, list[int]] = {}
        for file in files:
            for event in _events(file):  # each line parses: no two events interleaved
                by_agent.setdefault(event["data"]["agent"], []).append(event["seq"])
        assert {agent: sorted(seqs) for agent, seqs in by_agent.items()} == {a: list(range(1, 151)) for a in "abc"}

    def test_a_bad_setting_says_what_to_change(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "settings", env={"FACADE_TRACE_KEEP": "0"})
        assert done.returncode == 2
        assert "FACADE_TRACE_KEEP=0: Input should be greater than or equal to 1" in done.stderr

    def test_a_server_rotates_its_trace_and_still_reports_it(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        server = ServerProcess(tmp_path_factory.mktemp("rotating"), env={"FACADE_TRACE_MAX_BYTES": "8192", "FACADE_TRACE_KEEP": "1"})
        server.start()
        try:
            for number in range(12):
                raw_list(server.url, DEV["francis"], "modern", f"turn-{number}")
        finally:
            server.stop()
        trace = server.workdir / "data" / "trace.jsonl"
        assert list(trace_files(trace))[-1] == rotated(trace, 1) and not rotated(trace, 2).exists()
        done = facade(server.workdir, "catalogue", "--agent", "francis", "--conversation", "turn-11", "--json")
        assert json.loads(done.stdout)["agent"]["served"]["tools"]

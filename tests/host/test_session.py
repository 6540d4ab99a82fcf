"""Usage kept apart and rebuilt from a persisted session; sessions and trajectories on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from facade.host.compaction import continuation
from facade.host.messages import ToolCall, assistant, tool_result
from facade.host.session import Session
from facade.host.trajectory import SCHEMA_VERSION, TRACE_SCHEMA, Trajectory, read_trajectory
from facade.host.usage import COMPACTION, Usage, UsageLedger

ASK = Usage(input_tokens=1200, output_tokens=40, cache_write_tokens=3000)
ANSWER = Usage(input_tokens=180, output_tokens=95, cache_read_tokens=3000)


def tool_turn(session: Session) -> None:
    session.start_turn("Which projects are active?")
    call = ToolCall("call_1", "projects.project_list", {"status": "active"})
    session.add(assistant("", [call]))
    session.record_usage(ASK, tool_calls=1)
    session.add(tool_result(call, '{"total":1}', is_error=False))
    session.add(assistant("One: Harbour."))
    session.record_usage(ANSWER, tool_calls=0)


class TestUsage:
    """The four kinds stay apart; a tool turn shows as its two model calls."""

    def test_latest_turn_and_cumulative(self) -> None:
        ledger = UsageLedger()
        ledger.record(1, Usage(10, 5))
        ledger.record(2, ASK, 1)
        ledger.record(2, ANSWER, 0)
        assert [c.call for c in ledger.latest_turn] == [1, 2]
        assert ledger.latest == Usage(1380, 135, 3000, 3000)
        assert ledger.cumulative == Usage(1390, 140, 3000, 3000)
        assert ledger.cumulative.prompt_tokens == 1390 + 6000
        text = ledger.describe()
        assert text.splitlines()[:3] == [
            "turn 2: 2 model calls",
            "  call 1 (asked for 1 tool call): in 1,200 · cache write 3,000 · cache read 0 · out 40",
            "  call 2 (answered): in 180 · cache write 0 · cache read 3,000 · out 95",
        ]
        assert "session (3 calls)" in text

    def test_nothing_yet(self) -> None:
        assert UsageLedger().describe() == "usage: no model call yet" and UsageLedger().latest == Usage()


class TestSession:
    """A session written as it happens reloads to the same conversation and the same ledger."""

    def test_reload_rebuilds_messages_and_usage(self, tmp_path: Path) -> None:
        session = Session.open(tmp_path, "atlas", "s-1", provider="scripted", model="m")
        tool_turn(session)
        session.start_turn("And archived ones?")
        session.add(assistant("None."))
        session.record_usage(Usage(50, 3, 0, 3000), 0)
        again = Session.open(tmp_path, "atlas", "s-1")
        assert again.messages == session.messages and len(again.messages) == 6
        assert again.turn == 2
        assert again.ledger == session.ledger
        assert again.ledger.cumulative == ASK + ANSWER + Usage(50, 3, 0, 3000)
        assert [(c.turn, c.call, c.tool_calls) for c in again.ledger.calls] == [(1, 1, 1), (1, 2, 0), (2, 1, 0)]
        header = json.loads(session.path.read_text().splitlines()[0])
        assert header["type"] == "session" and header["agent"] == "atlas" and header["provider"] == "scripted"
        assert session.path == tmp_path / "atlas" / "s-1.jsonl"

    def test_a_compaction_is_replayed_on_reload(self, tmp_path: Path) -> None:
        session = Session.open(tmp_path, "atlas", "s-c")
        tool_turn(session)
        session.start_turn("And archived ones?")
        summary = continuation("The user asked for active projects: one, Harbour.")
        session.record_usage(Usage(900, 40), 0, COMPACTION)
        session.compact(summary, 4)
        session.add(assistant("None."))
        assert session.messages == [summary, {"role": "user", "content": "And archived ones?"}, {"role": "assistant", "content": "None."}]
        again = Session.open(tmp_path, "atlas", "s-c")
        assert again.messages == session.messages and again.turn == 2
        assert [(c.turn, c.call, c.purpose) for c in again.ledger.calls] == [(1, 1, "turn"), (1, 2, "turn"), (2, 1, COMPACTION)]
        with pytest.raises(ValueError, match="cannot replace 9 of 3 messages"):
            session.compact(summary, 9)

    def test_usage_written_before_compaction_existed_still_loads(self, tmp_path: Path) -> None:
        path = tmp_path / "old.jsonl"
        path.write_text(
            '{"type": "session", "schema": 1, "id": "old", "agent": "atlas"}\n'
            '{"type": "usage", "turn": 1, "call": 1, "usage": {"input_tokens": 5, "output_tokens": 1}, "tool_calls": 0}\n'
        )
        assert [(c.purpose, c.usage) for c in Session.load(path).ledger.calls] == [("turn", Usage(5, 1))]

    def test_fresh_ids_and_refusals(self, tmp_path: Path) -> None:
        first, second = Session.open(tmp_path, "atlas"), Session.open(tmp_path, "atlas")
        assert first.id != second.id
        with pytest.raises(ValueError, match="letters, digits"):
            Session.open(tmp_path, "atlas", "../escape")
        (tmp_path / "bad.jsonl").write_text('{"type": "message"}\n')
        with pytest.raises(ValueError, match="not a facade host session"):
            Session.load(tmp_path / "bad.jsonl")

    def test_artifacts_never_overwrite(self, tmp_path: Path) -> None:
        session = Session.open(tmp_path, "atlas", "s-2")
        one = session.save_artifact("<html>1</html>", "Budget 2027!")
        two = session.save_artifact("<html>2</html>", "Budget 2027!")
        assert (one.name, two.name) == ("01-budget-2027.html", "02-budget-2027.html")
        assert one.read_text() == "<html>1</html>" and one.parent == session.artifacts_dir


class TestTrajectory:
    """One envelope for every event; a resumed trace continues its sequence."""

    def test_envelope_and_sequence(self, tmp_path: Path) -> None:
        path = tmp_path / "t.trajectory.jsonl"
        Trajectory(path, "s-1").emit("session.started", {"agent": "atlas"})
        resumed = Trajectory(path, "s-1")
        resumed.emit("session.ended", {"reason": "closed"})
        events = read_trajectory(path)
        assert [e["seq"] for e in events] == [0, 1] and resumed.seq == 2
        for event in events:
            assert list(event) == ["traceSchema", "schemaVersion", "traceId", "type", "ts", "seq", "data"]
            assert (event["traceSchema"], event["schemaVersion"], event["traceId"]) == (TRACE_SCHEMA, SCHEMA_VERSION, "s-1")
            assert event["ts"].endswith("Z")
        assert events[1]["data"] == {"reason": "closed"}

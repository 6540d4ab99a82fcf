"""The log of a real `facade serve`: every line of its stdout and stderr is JSON — start, requests,
the SDK's and uvicorn's own lines, a warning, shutdown — each request's lines carry its request
id (and, in the MCP path, the JSON-RPC id and method, session, agent and conversation), one
access line per request, and no token anywhere."""

from __future__ import annotations

import json
import signal
import uuid
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from facade.logs import log_scope
from facade.web.requests import request_id
from tests.support import ACCEPT, DEV, ServerProcess, benchkit, mcp_client, raw_call

pytestmark = pytest.mark.anyio
WRONG_TOKEN = "facade-not-a-token-7f3a9c"
INITIALIZE = benchkit.INITIALIZE


def lines_of(server: ServerProcess) -> list[dict[str, Any]]:
    """Every line the server wrote, parsed; a line that is not a JSON object fails the test."""
    parsed = []
    for number, line in enumerate(server.log().splitlines(), 1):
        try:
            entry = json.loads(line)
        except ValueError:
            pytest.fail(f"line {number} of the server's output is not JSON: {line!r}")
        assert isinstance(entry, dict) and {"event", "level", "timestamp"} <= entry.keys(), line
        parsed.append(entry)
    return parsed


def stopped(server: ServerProcess, signum: int) -> int:
    assert server.process is not None
    server.process.send_signal(signum)
    code = server.process.wait(60)
    server.stop()
    return code


def get(server: ServerProcess, path: str, rid: str, token: str | None = None) -> httpx2.Response:
    headers = {"X-Request-Id": rid, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx2.get(f"{server.base}{path}", headers=headers, timeout=60)


class TestServeLog:
    """One server, driven with every kind of token, then stopped with SIGTERM."""

    async def test_every_line_json_with_context_and_no_token(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path).start()
        conversation = f"logs-{uuid.uuid4().hex[:8]}"
        try:
            async with mcp_client(
                server.url, DEV["atlas"], headers={"X-Request-Id": "req-modern-1", "X-Conversation-Id": conversation}
            ) as client:
                await client.list_tools()
                assert not (await client.call_tool("documents.document_list", {})).is_error
            async with mcp_client(server.url, DEV["francis"], mode="legacy", headers={"X-Request-Id": "req-legacy-1"}) as client:
                assert not (await client.call_tool("skills.tool_search", {"query": "invoice"})).is_error
            # A runtime's call carries the agent's token in its arguments.
            runtime = raw_call(
                server.url,
                "skills.tool_search",
                {"query": "files", "auth_token": DEV["infra"], "conversation_id": conversation},
                {"Authorization": f"Bearer {DEV['runtime']}", "X-Request-Id": "req-runtime-1"},
            )
            assert not runtime.get("isError")
            assert get(server, "/api/cards", "req-operator-1", DEV["operator"]).status_code == 200
            wrong = httpx2.post(
                server.url, content=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {WRONG_TOKEN}", "X-Request-Id": "req-wrong-1"}
            )
            assert wrong.status_code == 401
            # A rebound DNS name: the SDK's transport security warns (its own logger, through ours).
            rebound = httpx2.post(
                server.url, content=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {DEV['atlas']}", "Host": "evil.example"}
            )
            assert rebound.status_code == 421
            echoed = get(server, "/healthz", "req-health-1")
            assert echoed.headers["x-request-id"] == "req-health-1"
            replaced = get(server, "/healthz", "not well formed!")
            assert replaced.headers["x-request-id"] != "not well formed!" and len(replaced.headers["x-request-id"]) == 32
        finally:
            code = stopped(server, signal.SIGTERM)
        assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has shut down

        lines = lines_of(server)
        text = server.log()
        for token in [*DEV.values(), WRONG_TOKEN]:
            assert token not in text, f"a token ({token[:12]}…) is in the log"

        access = [entry for entry in lines if entry["event"] == "http.request"]
        for rid in ("req-operator-1", "req-wrong-1", "req-health-1", "req-runtime-1"):
            mine = [entry for entry in access if entry["request_id"] == rid]
            assert len(mine) == 1, f"{rid}: {mine}"  # one access line per request
            assert {"http_method", "path", "status", "duration_ms"} <= mine[0].keys()
        assert [e["status"] for e in access if e["request_id"] == "req-wrong-1"] == [401]
        assert replaced.headers["x-request-id"] in {e["request_id"] for e in access}
        assert not [e for e in access if "?" in e["path"]]

        calls = {entry["request_id"]: entry for entry in lines if entry["event"] == "tool.call"}
        modern = calls["req-modern-1"]
        assert (modern["agent"], modern["conversation"], modern["method"], modern["outcome"]) == (
            "atlas", conversation, "tools/call", "ok"
        )
        assert "jsonrpc_id" in modern
        legacy = calls["req-legacy-1"]
        assert legacy["agent"] == "francis" and legacy["mcp_session"] and legacy["jsonrpc_id"] is not None
        assert calls["req-runtime-1"]["agent"] == "infra"

        listed = [entry for entry in lines if entry["event"] == "tools.list" and entry.get("request_id") == "req-modern-1"]
        assert listed and listed[0]["agent"] == "atlas" and listed[0]["bytes"] > 10_000 and listed[0]["tools"] > 10
        assert listed[0]["era"] == "2026-07-28"

        warnings = [e for e in lines if e["logger"] == "mcp.server.transport_security"]
        assert warnings and warnings[0]["level"] == "warning" and "evil.example" in warnings[0]["event"]
        events = [entry["event"] for entry in lines]
        assert "serving" in events  # the banner, as a line like any other
        assert any(e.startswith("Started server process") for e in events)  # uvicorn's own, as JSON
        assert any(e.startswith("Finished server process") for e in events)
        assert not [e for e in lines if e.get("logger") == "uvicorn.access"]  # replaced by http.request


class TestInterrupted:
    """SIGINT while a handshake-era client holds its GET stream open: the shutdown, whatever it
    has to cancel, still writes JSON only."""

    async def test_sigint_with_an_open_stream(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path).start()
        assert server.process is not None
        try:
            with anyio.fail_after(60):
                try:
                    async with mcp_client(server.url, DEV["atlas"], mode="legacy") as client:
                        await client.list_tools()  # the session and its GET stream are open
                        server.process.send_signal(signal.SIGINT)
                        while server.process.poll() is None:
                            await anyio.sleep(0.2)
                except Exception:  # however the client hears that the server went away
                    pass
            code = server.process.wait(60)
        finally:
            server.stop()
        assert code == 0
        events = [entry["event"] for entry in lines_of(server)]
        assert any(e.startswith("Finished server process") for e in events)


def carried() -> dict[str, object]:
    """What a line logged here carries from the bound context."""
    from facade.logs import _merge_context

    return dict(_merge_context(None, "info", {}))


class TestPieces:
    """The request id rule and the log scope."""

    def test_request_id_kept_when_well_formed_else_new(self) -> None:
        assert request_id(b"abc-123_x.y:z") == "abc-123_x.y:z"
        for bad in (b"", b"has space", b"-leading", b"x" * 129, "é".encode("latin-1"), b'"quote"'):
            made = request_id(bad)
            assert made != bad.decode("latin-1") and len(made) == 32
        assert request_id(None) != request_id(None)

    def test_a_forked_worker_makes_ids_of_its_own(self) -> None:
        """`facade serve --workers N` forks: a child must not repeat its parent's next ids."""
        import os

        from facade.web import requests

        state = requests._ids.getstate()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its first id, then out without pytest's teardown
            os.write(write, request_id(None).encode())
            os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        child = os.read(read, 64).decode()
        os.close(read)
        requests._ids.setstate(state)  # the parent's next id, from the state the child was forked with
        assert len(child) == 32 and child != request_id(None)

    def test_scope_drops_what_was_bound_inside_it(self) -> None:
        from facade.logs import bind

        assert carried() == {}
        with log_scope(request_id="r1"):
            bind(agent="atlas")
            assert carried() == {"request_id": "r1", "agent": "atlas"}
        assert carried() == {}

    def test_scope_restores_what_was_bound_before_it(self) -> None:
        """Nested, overriding inside and leaving by an exception: afterwards the context is what
        it was before the scope, value for value."""
        import contextvars

        import pytest

        from facade.logs import bind

        def body() -> None:
            bind(request_id="outer", method="tools/call")
            with log_scope(request_id="r1", jsonrpc_id=7):
                with pytest.raises(RuntimeError), log_scope(mcp_session="s"):
                    bind(agent="atlas", request_id="r2")
                    assert carried() == {"request_id": "r2", "method": "tools/call", "jsonrpc_id": 7, "mcp_session": "s", "agent": "atlas"}
                    raise RuntimeError
                assert carried() == {"request_id": "r1", "method": "tools/call", "jsonrpc_id": 7}
            assert carried() == {"request_id": "outer", "method": "tools/call"}

        contextvars.copy_context().run(body)  # what the body binds outside a scope stays in its copy
        assert carried() == {}

    def test_lines_carry_the_context_under_their_own_keys(self) -> None:
        from facade.logs import _merge_context

        with log_scope(request_id="r1", agent="atlas"):
            line = _merge_context(None, "info", {"event": "tool.call", "agent": "said"})
        assert line == {"event": "tool.call", "agent": "said", "request_id": "r1"}

    def test_tasks_and_worker_threads_carry_their_callers_context(self) -> None:
        """A task spawned inside a scope, and a job it hands to a worker thread, log with the
        request's context; nothing bound in them comes back out."""
        import asyncio

        from facade.logs import bind
        from facade.threads import off_loop

        def in_thread() -> dict[str, object]:
            bind(handler="x")
            return carried()

        async def main() -> tuple[dict[str, object], dict[str, object], dict[str, object]]:
            with log_scope(request_id="r1"):
                seen = await asyncio.create_task(asyncio.to_thread(carried))
                threaded = await off_loop(in_thread, owner="atlas")
                after = carried()
            return seen, threaded, after

        seen, threaded, after = asyncio.run(main())
        assert seen == {"request_id": "r1"} and threaded == {"request_id": "r1", "handler": "x"}
        assert after == {"request_id": "r1"} and carried() == {}

    def test_timestamp_is_structlogs_iso_utc(self) -> None:
        import re

        import structlog

        from facade.logs import _timestamp

        ours = _timestamp(None, "info", {})["timestamp"]
        theirs = structlog.processors.TimeStamper(fmt="iso", utc=True)(None, "info", {})["timestamp"]
        shape = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"
        assert re.fullmatch(shape, ours) and re.fullmatch(shape, theirs)
        assert abs(_seconds(ours) - _seconds(theirs)) < 60  # the same clock, in the same zone

    def test_a_line_is_json_whatever_the_values(self) -> None:
        from facade.logs import _json_line

        odd = object()
        line = _json_line(None, "info", {"event": "x", "big": 2**70, "odd": odd, 3: "three", "text": "déjà"})
        assert "\n" not in line
        assert json.loads(line) == {"event": "x", "big": 2**70, "odd": repr(odd), "3": "three", "text": "déjà"}
        assert json.loads(_json_line(None, "info", {"event": "y", "odd": odd})) == {"event": "y", "odd": repr(odd)}

    def test_our_bound_logger_writes_what_structlogs_own_writes(self) -> None:
        """facade/logs.py writes its levels in one frame each; the same events through structlog's
        own filtering logger, with the same processors, give the same lines: levels, filtering,
        interpolation, exceptions, bound values, aliases, a wrapped standard-library logger."""
        import subprocess
        import sys

        script = """
import io, json, logging, sys, structlog
from facade.logs import configure_logging, log_scope
def events():
    log = structlog.get_logger("facade.x")
    with log_scope(request_id="r1"):
        log.info("a %s", "interpolated", k=1); log.debug("filtered out"); log.warning("w", n=2)
        try:
            1 / 0
        except ZeroDivisionError:
            log.exception("boom")
        log.error("e", exc_info=ValueError("v")); log.info("no exception", exc_info=False)
        log.msg("m"); log.warn("ww"); log.fatal("f"); log.bind(x=1).info("bound")
        structlog.wrap_logger(logging.getLogger("facade.std")).info("via std", q=1)
runs = []
for stock in (False, True):
    sys.stderr = io.StringIO()
    configure_logging(json_output=True)
    if stock:
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    events()
    lines = [json.loads(l) for l in sys.stderr.getvalue().splitlines()]
    runs.append([{k: v for k, v in l.items() if k != "timestamp"} for l in lines])
    structlog.reset_defaults()
sys.__stdout__.write(json.dumps(runs))
"""
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
        ours, stock = json.loads(done.stdout)
        assert ours == stock
        assert [line["level"] for line in ours] == ["info", "warning", "error", "error", "info", "info", "warning", "critical", "info", "info"]
        assert "ZeroDivisionError" in ours[2]["exception"] and ours[3]["exception"] == "ValueError: v"


def _seconds(stamp: str) -> float:
    import datetime

    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()

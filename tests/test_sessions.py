"""Handshake-era (2025-11-25) sessions cost what they hold and no more: a session is forgotten
when it ends, opening one needs a token, an idle one expires, and one token cannot open more
than its share. Plain HTTP JSON-RPC (as scripts/benchkit.py speaks it), for speed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import psutil
import pytest

from mcp.shared.exceptions import MCPError

from tests.support import ACCEPT, DEV, LEGACY, ServerProcess, jsonrpc, legacy_body, legacy_open, mcp_client

MB = 2**20
INITIALIZE = legacy_body("initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "sessions-test", "version": "1"}}, 0)


@pytest.fixture(scope="module")
def memory_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("sessions-memory")).start()
    yield proc
    proc.stop()


def cycle(client: httpx2.Client, url: str, token: str) -> None:
    """One session: initialize, initialized, tools/list, DELETE."""
    session = legacy_open(client, url, {"Authorization": f"Bearer {token}"})
    listed = client.post(url, content=legacy_body("tools/list", {}), headers=session)
    assert listed.status_code == 200 and "result" in jsonrpc(listed), listed.text[:300]
    assert client.delete(url, headers=session).status_code == 200


def initialize(url: str, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.post(url, content=INITIALIZE, headers={**ACCEPT, **headers}, timeout=60)


async def refused_on_opening(url: str, token: str | None, match: str, mode: str = "legacy") -> None:
    """The SDK client cannot even connect: its first request (legacy `initialize`, or the
    2026-07-28 discovery) is refused with 401 and the server's message (facade/mcp/gate.py)."""
    with pytest.raises(BaseExceptionGroup) as caught:
        async with mcp_client(url, token, mode=mode):
            pass
    assert caught.group_contains(MCPError, match=match), caught.value


SESSIONS = 2000


class TestMemory:
    """Sessions that list and are deleted leave nothing behind (it was ~21 kB each)."""

    def test_open_list_close_cycles_keep_rss_flat(self, memory_server: ServerProcess) -> None:
        process = psutil.Process(memory_server.pid)
        with httpx2.Client(timeout=60) as client:
            for _ in range(200):  # warm-up: first listings, caches, allocator arenas
                cycle(client, memory_server.url, DEV["infra"])
            start = process.memory_info().rss
            for _ in range(SESSIONS):
                cycle(client, memory_server.url, DEV["infra"])
            grown = process.memory_info().rss - start
        # 1 kB a session at most: the leak this holds was ~21 kB each. 5,000 sessions grew RSS by
        # 0.15 MB (2026-12-06), so 2,000 hold the same per-session bound with a wide margin, at
        # two fifths of the time (the suite's slowest test: 22-60 s with 5,000).
        assert grown < SESSIONS * 1024, f"RSS grew {grown / MB:.1f} MB over {SESSIONS:,} sessions ({grown / SESSIONS / 1024:.1f} kB each)"


class TestToken:
    """`initialize` without a token the server accepts opens nothing."""

    @pytest.mark.parametrize(
        "headers",
        [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Bearer {DEV['operator']}"}, {"Authorization": "Basic eDp5"}],
        ids=["no-header", "unknown-token", "operator-token", "not-bearer"],
    )
    def test_refused_with_401(self, memory_server: ServerProcess, headers: dict[str, str]) -> None:
        refused = initialize(memory_server.url, headers)
        assert refused.status_code == 401, refused.text
        assert "mcp-session-id" not in refused.headers
        assert refused.headers["www-authenticate"].startswith("Bearer")
        error = refused.json()["error"]
        assert "Authorization: Bearer" in error["message"] and "agent or runtime token" in error["message"]

    @pytest.mark.parametrize("token", [DEV["francis"], DEV["runtime"]], ids=["agent", "runtime"])
    def test_agent_and_runtime_tokens_open_sessions(self, memory_server: ServerProcess, token: str) -> None:
        opened = initialize(memory_server.url, {"Authorization": f"Bearer {token}"})
        assert opened.status_code == 200 and opened.headers["mcp-session-id"]


def session_ends(server: ServerProcess, reason: str, timeout: float = 120) -> list[dict]:  # type: ignore[type-arg]
    """Waits (generously) for the server to log a session ending for `reason`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ended = [e for e in map(_json, server.log().splitlines()) if e.get("event") == "mcp.session_ended" and e.get("reason") == reason]
        if ended:
            return ended
        time.sleep(0.2)
    raise AssertionError(f"no session ended ({reason}) within {timeout} s; the log:\n{server.log()[-3000:]}")


def _json(line: str) -> dict:  # type: ignore[type-arg]
    try:
        return json.loads(line)
    except ValueError:
        return {}


class TestIdle:
    """A session with nothing in flight for FACADE_SESSION_IDLE_SECONDS is closed."""

    def test_idle_session_expires(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path, env={"FACADE_SESSION_IDLE_SECONDS": "1"}).start()
        try:
            with httpx2.Client(timeout=60) as client:
                session = legacy_open(client, server.url, {"Authorization": f"Bearer {DEV['francis']}"})
                assert client.post(server.url, content=legacy_body("tools/list", {}), headers=session).status_code == 200
                session_ends(server, "idle")
                gone = client.post(server.url, content=legacy_body("tools/list", {}), headers=session)
            assert gone.status_code == 404 and jsonrpc(gone)["error"]["message"] == "Session not found"
        finally:
            server.stop()


class TestCap:
    """One token holds at most FACADE_MAX_SESSIONS_PER_TOKEN open sessions; others are unaffected."""

    def test_over_the_cap_is_a_clear_error(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path, env={"FACADE_MAX_SESSIONS_PER_TOKEN": "3"}).start()
        francis = {"Authorization": f"Bearer {DEV['francis']}"}
        try:
            with httpx2.Client(timeout=60) as client:
                held = [legacy_open(client, server.url, francis) for _ in range(3)]
                refused = initialize(server.url, francis)
                assert refused.status_code == 429, refused.text
                message = refused.json()["error"]["message"]
                assert "3 open sessions" in message and "FACADE_MAX_SESSIONS_PER_TOKEN" in message and "DELETE" in message
                assert initialize(server.url, {"Authorization": f"Bearer {DEV['atlas']}"}).status_code == 200
                assert client.delete(server.url, headers=held[0]).status_code == 200
                assert initialize(server.url, francis).status_code == 200
        finally:
            server.stop()

"""The event loop never waits on I/O: with Redis answering slowly, a listing and a call (and the
operator API's reads and writes) leave the server's loop free.

The server runs in this process, in a thread of its own (uvicorn on its own event loop), so that
a ticker coroutine on that loop can measure how late it wakes; a real MCP client talks to it over
loopback HTTP. Redis is reached through a proxy that holds back every reply for `DELAY` seconds.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from facade.catalogue.discovery import discover
from tests.support import DEV, REDIS_URL, base_env, emptied_redis, free_port, mcp_client, text_of

pytestmark = pytest.mark.anyio
REGISTRY = discover()
FILES_FULL = sorted(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")
# Redis db 12: this file's own, emptied before use (tests/test_elevation_backends.py has 13).
TEST_REDIS = REDIS_URL.rsplit("/", 1)[0] + "/12"
# Each Redis reply is held back DELAY (under the client's 0.5 s socket timeout); a loop that
# waited on one would be at least that late. The lag allowed is half of it: above what a busy
# machine's scheduler adds (a 50 ms bound failed there, 58-69 ms late), well below one blocking reply.
DELAY = 0.3
MAX_LAG = 0.15
TICK = 0.005


class SlowProxy:
    """A TCP proxy to Redis that delays every chunk Redis sends back by `delay` seconds, and
    counts them: a test that measured no delayed reply would prove nothing."""

    def __init__(self, target: tuple[str, int], delay: float) -> None:
        self.target = target
        self.delay = delay
        self.replies = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, slow: bool) -> None:
        try:
            while data := source.recv(65536):
                if slow:
                    time.sleep(self.delay)
                    self.replies += 1
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self._closed = True
        self._server.close()
        for sock in self._sockets:
            sock.close()


@dataclass
class Ticker:
    """Wakes every `TICK` on the server's loop and records how late it woke, while recording."""

    recording: bool = False
    worst: float = 0.0
    ticks: int = 0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + TICK
            await asyncio.sleep(TICK)
            if self.recording:
                self.ticks += 1
                self.worst = max(self.worst, loop.time() - due)


@dataclass
class InProcessServer:
    """`facade serve`'s app under uvicorn in a thread, with a ticker on the same loop."""

    app: object
    port: int = field(default_factory=free_port)
    ticker: Ticker = field(default_factory=Ticker)

    def __post_init__(self) -> None:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, lifespan="on", log_level="warning"))  # type: ignore[arg-type]
        self.thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)

    async def _main(self) -> None:
        ticking = asyncio.ensure_future(self.ticker.run())
        try:
            await self.server.serve()
        finally:
            ticking.cancel()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the in-process server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def slow_redis() -> Iterator[SlowProxy]:
    emptied_redis(12)
    where = urlsplit(TEST_REDIS)
    proxy = SlowProxy((where.hostname or "127.0.0.1", where.port or 6379), DELAY)
    yield proxy
    proxy.close()


@pytest.fixture
def in_process(tmp_path: Path, slow_redis: SlowProxy, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessServer]:
    from facade.serving.service import build_service, prepare_database
    from facade.web.app import build_app

    for name, value in base_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FACADE_REDIS_URL", f"redis://127.0.0.1:{slow_redis.port}/12")
    service = build_service()
    prepare_database(service)
    server = InProcessServer(build_app(service))
    server.start()
    yield server
    server.stop()
    service.engine.dispose()


def grant(conversation: str, domain: str) -> None:
    """An elevation written straight into Redis (not through the slow proxy), as an approval on
    another replica would leave it."""
    import redis

    from facade.access.redis_store import RedisElevations

    client = redis.Redis.from_url(TEST_REDIS)
    RedisElevations(client, TEST_REDIS).grant("francis", conversation, domain)
    client.close()


class TestSlowRedis:
    """Listing, calling, the operator API and the dashboard keep the loop's lag under MAX_LAG
    (150 ms) while every Redis reply takes DELAY (300 ms)."""

    async def test_listing_and_call_leave_the_loop_free(self, in_process: InProcessServer, slow_redis: SlowProxy) -> None:
        conversation = f"lag-{uuid.uuid4().hex[:6]}"
        url = f"{in_process.base}/mcp"
        async with mcp_client(url, DEV["francis"], headers={"X-Conversation-Id": conversation}) as client:
            # Warm up: connections to Redis and the database, the handler's imports, and the
            # first serialization of each view (CPU, not I/O) happen outside the measurement.
            await client.list_tools()
            assert not (await client.call_tool("files.list", {"path": ""})).is_error
            grant(conversation, "files")
            await client.list_tools()

            ticker, replies = in_process.ticker, slow_redis.replies
            ticker.recording = True
            listed = {t.name for t in (await client.list_tools()).tools}
            called = await client.call_tool("files.list", {"path": ""})
            ticker.recording = False

        assert not called.is_error, text_of(called)
        assert set(FILES_FULL) <= listed  # the elevation was read, through the slow proxy
        assert slow_redis.replies - replies >= 2, "no Redis reply was delayed: the test measured nothing"
        assert ticker.ticks > 0
        assert ticker.worst < MAX_LAG, f"the event loop was {ticker.worst * 1000:.0f} ms late"

    async def test_operator_api_leaves_the_loop_free(self, in_process: InProcessServer, slow_redis: SlowProxy) -> None:
        conversation = f"lag-api-{uuid.uuid4().hex[:6]}"
        headers = {"Authorization": f"Bearer {DEV['operator']}"}
        grant(conversation, "files")
        async with httpx2.AsyncClient(base_url=in_process.base, headers=headers, timeout=60) as http:
            # Warm up: the first dashboard compiles its templates and loads the agents' tokenizers,
            # and loading a bundled tokenizer holds the GIL for ~1 s even in a worker thread
            # (measured 2026-12-01): a start-up cost, not I/O, and outside this measurement.
            assert (await http.post("/dashboard/login", data={"token": DEV["operator"]})).status_code == 303
            assert (await http.get("/dashboard")).status_code == 200
            ticker, replies = in_process.ticker, slow_redis.replies
            ticker.recording = True
            tools = await http.get(f"/api/agents/francis/tools?conversation_id={conversation}")
            cards = await http.get("/api/cards?status=all")
            audit = await http.get("/api/audit")
            deleted = await http.delete(f"/api/conversations/{conversation}")
            dashboard = await http.get("/dashboard")
            ticker.recording = False
        assert [r.status_code for r in (tools, cards, audit, deleted, dashboard)] == [200] * 5
        assert "Sign in" not in dashboard.text
        assert set(FILES_FULL) <= set(t["name"] for t in tools.json()["tools"])
        assert deleted.json()["reverted"] == [{"agent": "francis", "domain": "files"}]
        assert slow_redis.replies - replies >= 3, "no Redis reply was delayed: the test measured nothing"
        assert ticker.worst < MAX_LAG, f"the event loop was {ticker.worst * 1000:.0f} ms late"


class TestRedisTooSlow:
    async def test_the_dashboard_says_redis_is_unavailable_instead_of_failing(self, in_process: InProcessServer, slow_redis: SlowProxy) -> None:
        """Redis slower than the client's 0.5 s timeout: the dashboard answers 503 with what is
        wrong (it was a 500 with a stack trace in the log), and the server goes on serving."""
        async with httpx2.AsyncClient(base_url=in_process.base, timeout=60) as http:
            assert (await http.post("/dashboard/login", data={"token": DEV["operator"]})).status_code == 303
            slow_redis.delay = 0.8
            page = await http.get("/dashboard")
            assert page.status_code == 503, page.text
            assert "Redis at redis://127.0.0.1" in page.text and "try again shortly" in page.text
            slow_redis.delay = 0
            assert (await http.get("/healthz")).status_code == 200

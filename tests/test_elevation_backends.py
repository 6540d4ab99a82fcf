"""Where elevations live: memory (a restart degrades to the defaults), the TTL, and Redis shared
by two replicas (an approval on one reaches a client on the other; Redis away fails closed)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from facade.catalogue.discovery import discover
from tests.support import DEV, REDIS_URL, ServerProcess, emptied_redis, free_port, mcp_client, need_service, text_of
from tests.test_elevation import FILES_FULL, api, names, watched

pytestmark = pytest.mark.anyio
REGISTRY = discover()
# A database index of its own, emptied before use: the tests share the machine's Redis.
TEST_REDIS = REDIS_URL.rsplit("/", 1)[0] + "/13"


async def elevate(server: ServerProcess, approver: ServerProcess, conversation: str) -> int:
    async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": conversation}) as client:
        card_id = (await client.call_tool("skills.elevate", {"domain": "files", "reason": "backend test"})).structured_content["card_id"]
    assert api(approver, "POST", f"/api/cards/{card_id}/approve").json()["card"]["outcome"]["ok"]
    return card_id


async def listed(server: ServerProcess, conversation: str) -> set[str]:
    async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": conversation}) as client:
        return await names(client)


class TestMemory:
    """In memory by default: a restart loses elevations and degrades to the defaults."""

    async def test_restart_degrades_to_defaults(self, tmp_path: Path) -> None:
        port = free_port()
        server = ServerProcess(tmp_path, port=port).start()
        try:
            await elevate(server, server, "restart")
            assert set(FILES_FULL) <= await listed(server, "restart")
        finally:
            server.stop()
        again = ServerProcess(tmp_path, port=port).start()
        try:
            assert not set(FILES_FULL) & await listed(again, "restart")
            assert api(again, "GET", "/api/cards?status=all").json()["cards"] == []
            assert any(e["action"] == "ran" for e in api(again, "GET", "/api/audit").json()["entries"])
        finally:
            again.stop()

    async def test_ttl_expiry_reverts_and_tells_the_client(self, tmp_path: Path, era: str) -> None:
        env = {"FACADE_ELEVATION_TTL_SECONDS": "3", "FACADE_SWEEP_SECONDS": "0.3"}
        server = ServerProcess(tmp_path, env=env).start()
        try:
            async with watched(server, "francis", era, "ttl") as (client, changes):
                before = await names(client)
                await elevate(server, server, "ttl")
                await changes.wait(0)
                assert set(FILES_FULL) <= await names(client)
                await changes.wait(1, timeout=20)
                assert await names(client) == before
            assert any(e["actor"] == "clock" and e["action"] == "expired" for e in api(server, "GET", "/api/audit").json()["entries"])
        finally:
            server.stop()


@pytest.fixture
def redis_url() -> str:
    return emptied_redis(13)


@pytest.fixture
def replicas(tmp_path: Path, redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two `facade serve` replicas sharing Redis and one database."""
    env = {"FACADE_REDIS_URL": redis_url, "FACADE_DATA_DIR": str(tmp_path / "shared")}
    first = ServerProcess(tmp_path / "a", env=env)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first.start()
    second = ServerProcess(tmp_path / "b", env=env).start()
    yield first, second
    second.stop()
    first.stop()


class TestRedisReplicas:
    """With FACADE_REDIS_URL, an approval on one replica reaches a client on the other."""

    async def test_cycle_across_replicas(self, replicas: tuple[ServerProcess, ServerProcess], era: str) -> None:
        taker, client_side = replicas
        conversation = f"replicas-{era}-{uuid.uuid4().hex[:6]}"
        async with watched(client_side, "francis", era, conversation) as (client, changes):
            before = await names(client)
            card_id = (await client.call_tool("skills.elevate", {"domain": "files", "reason": "across replicas"})).structured_content["card_id"]
            pending = api(taker, "GET", "/api/cards").json()["cards"]
            assert [c["card_id"] for c in pending if c["conversation"] == conversation] == [card_id]
            assert api(taker, "POST", f"/api/cards/{card_id}/approve").json()["card"]["outcome"]["ok"]
            await changes.wait(0)
            assert await names(client) - before == set(FILES_FULL)
            assert api(taker, "DELETE", f"/api/conversations/{conversation}").json()["reverted"]
            await changes.wait(1)
            assert await names(client) == before

    async def test_redis_lost_mid_run_fails_closed_then_recovers(self, tmp_path: Path) -> None:
        """A private Redis, killed while an elevation is live and started again: meanwhile the
        conversation falls back to its defaults and elevating is refused, core tools keep working,
        and once Redis is back elevating works again without restarting the facade."""
        port = free_port()
        with private_redis(port) as redis:
            server = ServerProcess(tmp_path, env={"FACADE_REDIS_URL": f"redis://127.0.0.1:{port}/0"}).start()
            try:
                await elevate(server, server, "lost")
                assert set(FILES_FULL) <= await listed(server, "lost")
                redis.stop()
                async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": "lost"}) as client:
                    tools = await names(client)
                    assert "files.list" in tools and not set(FILES_FULL) & tools  # closed: defaults only
                    assert not (await client.call_tool("files.list", {"path": ""})).is_error
                    refused = await client.call_tool("skills.elevate", {"domain": "files", "reason": "redis is gone"})
                assert refused.is_error and "cannot be reached" in text_of(refused)
                redis.start()  # an empty Redis: what it held is gone, as after any Redis restart
                assert not set(FILES_FULL) & await listed(server, "lost")
                await elevate(server, server, "lost")
                assert set(FILES_FULL) <= await listed(server, "lost")
            finally:
                server.stop()

    async def test_redis_away_fails_closed(self, tmp_path: Path) -> None:
        """Redis gone after the start (one away at the start stops it with one line:
        tests/test_cli.py): core tools go on, elevating is refused naming Redis."""
        port = free_port()
        with private_redis(port) as redis:
            server = ServerProcess(tmp_path, env={"FACADE_REDIS_URL": f"redis://127.0.0.1:{port}/0"}).start()
            try:
                redis.stop()
                async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": "away"}) as client:
                    tools = await names(client)
                    assert "files.list" in tools and not set(FILES_FULL) & tools
                    assert not (await client.call_tool("files.list", {"path": ""})).is_error
                    refused = await client.call_tool("skills.elevate", {"domain": "files", "reason": "redis is away"})
                assert refused.is_error and "Redis at redis://127.0.0.1" in text_of(refused)
                assert "cannot be reached" in text_of(refused)
                assert httpx2.get(f"{server.base}/healthz").status_code == 200
            finally:
                server.stop()


class TestRedisChannels:
    def test_deployments_in_two_databases_of_one_server_do_not_hear_each_other(self) -> None:
        """Pub/sub spans a Redis server's databases: each database has its own list_changed
        channel, so an approval in one deployment reaches none of another's sessions."""
        import redis

        from facade.access.redis_store import RedisChanges

        mine, theirs = emptied_redis(13), emptied_redis(15)
        listener = redis.Redis.from_url(mine)
        pubsub = listener.pubsub()
        pubsub.subscribe(RedisChanges(listener, mine).channel)
        assert pubsub.get_message(timeout=10)["type"] == "subscribe"
        RedisChanges(redis.Redis.from_url(theirs), theirs).publish("francis", "theirs")
        RedisChanges(redis.Redis.from_url(mine), mine).publish("francis", "mine")
        heard = pubsub.get_message(timeout=10)
        assert heard is not None and b'"conversation": "mine"' in heard["data"], heard
        pubsub.close()
        listener.close()


class TestRedisCards:
    """The card store in Redis reads every card at once, and forgets the ids of expired ones."""

    def test_all_in_id_order_and_expired_ids_leave_the_index(self, redis_url: str) -> None:
        import redis

        from facade.access.cards import Card
        from facade.access.redis_store import PREFIX, TIMEOUTS, RedisCards

        client = redis.Redis.from_url(redis_url, **TIMEOUTS)
        cards = RedisCards(client, redis_url)
        assert cards.all() == []
        now = time.time()
        made = [
            cards.create(Card(n, "skills.elevate", {"domain": d}, "francis", "c", "", now, now + 60))
            for n, d in enumerate(("files", "photos", "mail"), start=1)
        ]
        client.delete(f"{PREFIX}card:{made[1].id}")  # as if its key had expired
        assert cards.all() == [made[0], made[2]]
        assert [int(i) for i in client.zrange(f"{PREFIX}cards:ids", 0, -1)] == [made[0].id, made[2].id]
        client.close()


class PrivateRedis:
    """A redis-server of this test's own on `port`, stopped and started at will."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).stdout.strip() != b"PONG":
            assert time.monotonic() < deadline, "the private redis-server did not start"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@contextlib.contextmanager
def private_redis(port: int) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        need_service("redis-server", "the redis-server and redis-cli programs are not on PATH")
    redis = PrivateRedis(port)
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()

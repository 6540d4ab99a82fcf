"""Two `facade serve` replicas behind Debian's haproxy in round robin, without stickiness, on
PostgreSQL and Redis: a handshake-era (2025-11-25) session works whichever replica each of its
requests lands on (DESIGN "Scale"), because a replica forwards a session's requests to the
replica that holds it."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.support import (
    DEV,
    REDIS_URL,
    ServerProcess,
    emptied_redis,
    free_port,
    jsonrpc,
    legacy_body,
    legacy_open,
    mcp_client,
    need_service,
    postgres_database,
    text_of,
)
from tests.test_elevation import FILES_FULL, api, counting, names

pytestmark = pytest.mark.anyio
# A database index of its own, emptied before use: the tests share the machine's Redis.
BALANCER_REDIS = REDIS_URL.rsplit("/", 1)[0] + "/11"  # emptied_redis(11)
HAPROXY = "/usr/sbin/haproxy"

# Round robin on every request (each goes to the next replica, whatever the one before it
# hit), no stickiness of any kind; the long timeouts keep an idle SSE stream open.
HAPROXY_CONFIG = """\
global
    maxconn 512
defaults
    mode http
    option http-server-close
    timeout connect 5s
    timeout client 300s
    timeout server 300s
    timeout tunnel 1h
frontend mcp
    bind 127.0.0.1:{port}
    default_backend replicas
backend replicas
    balance roundrobin
{servers}
"""


@dataclass
class Balancer:
    """haproxy on a free loopback port in front of `backends`."""

    workdir: Path
    backends: list[int]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> Balancer:
        self.port = free_port()
        servers = "\n".join(f"    server r{n} 127.0.0.1:{port}" for n, port in enumerate(self.backends))
        config = self.workdir / "haproxy.cfg"
        config.write_text(HAPROXY_CONFIG.format(port=self.port, servers=servers))
        checked = subprocess.run([HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        log = open(self.workdir / "haproxy.log", "ab")
        self.process = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, (self.workdir / "haproxy.log").read_text()
            try:
                httpx2.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2)
                return self
            except httpx2.HTTPError:
                assert time.monotonic() < deadline, "haproxy did not accept connections within 60 s"
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@dataclass
class Deployment:
    balancer: Balancer
    replicas: list[ServerProcess]
    root: Path
    env: dict[str, str]  # what a further replica of the same deployment starts with


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    if shutil.which(HAPROXY) is None:
        need_service("haproxy", f"{HAPROXY} is not installed (scripts/test.sh installs Debian's haproxy)")
    emptied_redis(11)
    root = tmp_path_factory.mktemp("balancer")
    with postgres_database() as database:
        env = {"FACADE_DATABASE_URL": database, "FACADE_REDIS_URL": BALANCER_REDIS}
        replicas = []
        try:
            for name in ("a", "b"):  # one after the other: the first migrates and seeds
                (root / name).mkdir()
                replicas.append(ServerProcess(root / name, env=env, name=f"replica-{name}").start())
            balancer = Balancer(root, [r.port for r in replicas]).start()
            try:
                yield Deployment(balancer, replicas, root, env)
            finally:
                balancer.stop()
        finally:
            for replica in replicas:
                replica.stop()


class TestThroughTheBalancer:
    """The official SDK client in legacy mode, every request round-robined by haproxy."""

    @pytest.mark.parametrize("approver", [0, 1], ids=["approved-on-a", "approved-on-b"])
    async def test_session_lists_calls_and_hears_list_changed(self, deployment: Deployment, approver: int) -> None:
        conversation = f"balanced-{uuid.uuid4().hex[:8]}"
        connect = lambda handler: mcp_client(  # noqa: E731
            deployment.balancer.url, DEV["francis"], mode="legacy", headers={"X-Conversation-Id": conversation}, message_handler=handler
        )
        async with counting(connect, "legacy") as (client, changes):
            before = await names(client)
            assert "files.list" in before and not set(FILES_FULL) & before
            for _ in range(4):  # enough requests that both replicas serve some
                listed = await client.call_tool("files.list", {"path": ""})
                assert not listed.is_error, text_of(listed)
                assert await names(client) == before
            held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "behind a balancer"})
            assert not held.is_error, text_of(held)
            card_id = held.structured_content["card_id"]
            decided = api(deployment.replicas[approver], "POST", f"/api/cards/{card_id}/approve")
            assert decided.status_code == 200 and decided.json()["card"]["outcome"]["ok"], decided.text
            await changes.wait(0, timeout=60)  # on the GET stream, wherever haproxy put it
            assert await names(client) - before == set(FILES_FULL)


def open_session(url: str, conversation: str) -> dict[str, str]:
    with httpx2.Client(timeout=60) as client:
        return legacy_open(client, url, {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": conversation})


def post(url: str, headers: dict[str, str], method: str, params: dict, rid: int = 1) -> httpx2.Response:  # type: ignore[type-arg]
    return httpx2.post(url, content=legacy_body(method, params, rid), headers=headers, timeout=60)


class TestForwarding:
    """Straight at the replicas: a session opened on one is usable on the other."""

    async def test_the_other_replica_serves_the_session_and_its_stream(self, deployment: Deployment) -> None:
        owner, other = deployment.replicas
        conversation = f"forwarded-{uuid.uuid4().hex[:8]}"
        session = open_session(owner.url, conversation)
        listed = post(other.url, session, "tools/list", {})
        assert listed.status_code == 200, listed.text
        assert "files.list" in {t["name"] for t in jsonrpc(listed)["result"]["tools"]}
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(60, read=None)) as client:
            async with client.stream("GET", other.url, headers=session) as stream:
                assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
                held = jsonrpc(post(other.url, session, "tools/call", {"name": "skills.elevate", "arguments": {"domain": "files", "reason": "forwarded"}}))
                card_id = held["result"]["structuredContent"]["card_id"]
                assert api(owner, "POST", f"/api/cards/{card_id}/approve").json()["card"]["outcome"]["ok"]
                with anyio.fail_after(60):
                    async for line in stream.aiter_lines():
                        if line.startswith("data:") and "notifications/tools/list_changed" in line:
                            break
        ended = httpx2.delete(other.url, headers=session, timeout=60)
        assert ended.status_code == 200, ended.text
        for replica in deployment.replicas:
            gone = post(replica.url, session, "tools/list", {})
            assert gone.status_code == 404 and jsonrpc(gone)["error"]["message"] == "Session not found"

    def test_an_unknown_owner_is_session_not_found(self, deployment: Deployment) -> None:
        session = open_session(deployment.replicas[0].url, "unknown-owner")
        forged = {**session, "Mcp-Session-Id": "0123456789ab-" + uuid.uuid4().hex}
        for replica in deployment.replicas:
            refused = post(replica.url, forged, "tools/list", {})
            assert refused.status_code == 404 and jsonrpc(refused)["error"]["message"] == "Session not found"

    def test_a_stopped_owner_s_session_is_not_found_where_it_was_forwarded_before(self, deployment: Deployment) -> None:
        # The forwarder keeps the owner's URL for a while (facade/mcp/replicas.py): whether it
        # tries that URL (refused) or asks Redis (no entry), the answer is 404, never a hang or 5xx.
        (deployment.root / "c").mkdir(exist_ok=True)
        owner = ServerProcess(deployment.root / "c", env=deployment.env, name="replica-c").start()
        try:
            session = open_session(owner.url, "owner-stops")
            forwarder = deployment.replicas[0]
            assert post(forwarder.url, session, "tools/list", {}).status_code == 200
        finally:
            owner.stop()
        for _ in range(2):  # the second after the URL is forgotten: Redis says the owner is gone
            gone = post(forwarder.url, session, "tools/list", {})
            assert gone.status_code == 404 and jsonrpc(gone)["error"]["message"] == "Session not found"

    def test_a_forwarded_request_is_not_forwarded_again(self, deployment: Deployment) -> None:
        owner, other = deployment.replicas
        session = open_session(owner.url, "hop")
        assert post(other.url, session, "tools/list", {}).status_code == 200
        looped = post(other.url, {**session, "X-Facade-Forwarded": "1"}, "tools/list", {})
        assert looped.status_code == 404, looped.text



class TestReplicaIds:
    """Which replica holds a session is read from its id alone; ids minted without replicas name none."""

    def test_a_session_id_names_its_replica(self) -> None:
        from facade.mcp.replicas import new_replica_id, replica_of, session_id_for

        replica = new_replica_id()
        minted = {session_id_for(replica) for _ in range(100)}
        assert len(minted) == 100 and {replica_of(s) for s in minted} == {replica}
        assert replica_of(session_id_for(None)) is None
        for foreign in (None, "", "abc-def", "0123456789ag-x", uuid.uuid4().hex, "0123456789ab"):
            assert replica_of(foreign) is None, foreign

    @pytest.mark.parametrize(
        ("env", "expected"),
        [
            ({"FACADE_HOST": "127.0.0.1", "FACADE_PORT": "9000"}, "http://127.0.0.1:9000"),
            ({"FACADE_HOST": "::1", "FACADE_PORT": "9000"}, "http://[::1]:9000"),
            ({"FACADE_HOST": "0.0.0.0", "FACADE_PORT": "9000"}, f"http://{socket.gethostname()}:9000"),
            ({"FACADE_REPLICA_URL": "http://replica-3.internal:8765/"}, "http://replica-3.internal:8765"),
        ],
        ids=["loopback", "ipv6", "every-interface", "set"],
    )
    def test_where_the_others_reach_it(self, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str) -> None:
        from facade.settings import Settings

        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert Settings().effective_replica_url == expected


class Directory:
    """Stands in for Redis's replica entries, counting the look-ups."""

    def __init__(self, entries: dict[str, str]) -> None:
        self.entries = entries
        self.lookups = 0

    async def lookup(self, replica_id: str) -> str | None:
        self.lookups += 1
        return self.entries.get(replica_id)


class TestOwnerLookups:
    """A forwarded call finds its owner's URL without a Redis round trip each time."""

    @pytest.fixture
    def clock(self, monkeypatch: pytest.MonkeyPatch) -> list[float]:
        import facade.mcp.replicas as replicas

        now = [1000.0]
        monkeypatch.setattr(replicas, "monotonic", lambda: now[0])  # the module's clock, not the loop's
        return now

    async def test_an_owner_is_asked_for_once_a_heartbeat(self, clock: list[float]) -> None:
        from facade.mcp.replicas import HEARTBEAT_SECONDS, Replica, session_id_for

        directory = Directory({"0123456789ab": "http://owner:1"})
        replica = Replica("http://me:2", directory)  # type: ignore[arg-type]
        sessions = [session_id_for("0123456789ab") for _ in range(3)]  # remembered by owner, not by session
        assert [await replica.owner_url(s) for s in sessions] == ["http://owner:1"] * 3
        assert directory.lookups == 1
        session = sessions[0]
        clock[0] += HEARTBEAT_SECONDS + 0.1
        directory.entries["0123456789ab"] = "http://owner:3"  # what Redis says now
        assert await replica.owner_url(session) == "http://owner:3" and directory.lookups == 2
        assert await replica.owner_url(session_id_for(replica.id)) is None and directory.lookups == 2

    async def test_owners_no_longer_asked_about_are_let_go(self, clock: list[float]) -> None:
        from facade.mcp.replicas import HEARTBEAT_SECONDS, KNOWN_AT_MOST, Replica, session_id_for

        owners = {f"{i:012x}": f"http://owner:{i}" for i in range(KNOWN_AT_MOST + 1)}
        replica = Replica("http://me:2", Directory(owners))  # type: ignore[arg-type]
        for owner in list(owners)[:KNOWN_AT_MOST]:  # each restart of a replica is a new one
            await replica.owner_url(session_id_for(owner))
        clock[0] += HEARTBEAT_SECONDS + 0.1
        await replica.owner_url(session_id_for(list(owners)[-1]))
        assert list(replica._known) == [list(owners)[-1]]

    async def test_an_unreachable_or_gone_owner_is_asked_about_again(self, clock: list[float]) -> None:
        from facade.mcp.replicas import Replica, session_id_for

        directory = Directory({"0123456789ab": "http://owner:1"})
        replica = Replica("http://me:2", directory)  # type: ignore[arg-type]
        session = session_id_for("0123456789ab")
        await replica.owner_url(session)
        replica.unreachable(session)
        del directory.entries["0123456789ab"]
        for _ in range(2):  # gone: refused each time, never remembered
            with pytest.raises(LookupError):
                await replica.owner_url(session)
        assert directory.lookups == 3

"""The hosts domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable), the inventory's rules hold, probes
report what they find on real loopback servers, and the migration builds exactly the schema of
tables.py. Every probe here targets 127.0.0.1 only."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.hosts import domain
from domains.hosts.tables import Host, HostTag, Probe
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, count, sqlite_engine
from tests.support import free_port

hosts = DomainHarness(domain)
call, migrated, seeded = hosts.call, hosts.migrated, hosts.seeded
# The longest timeout a probe allows (hosts/inputs.py Timeout): a probe that gets its answer
# returns at once, so only a regression waits this long.
PROBE_BOUND = 5.0


# Helpers and fixtures


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hosts.template(tmp_path_factory.mktemp("hosts"))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database of this test's own."""
    with hosts.copy(template, tmp_path) as engine:
        yield engine


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/old":
            self.send_response(301)
            self.send_header("Location", "/health")
            self.end_headers()
            return
        body = b'{"ok": true}' if self.path == "/health" else b"no such page"
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web() -> Iterator[int]:
    """A real HTTP server on a free loopback port; yields the port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback TCP port that accepts connections and answers garbage (no HTTP)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    stop = threading.Event()

    def serve() -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"\x00\x01 not http\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(sock.getsockname()[1])
    stop.set()
    thread.join(2)
    sock.close()


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities in both tiers, every one with an
    example and a one-sentence description, and no identity fields."""

    def test_floors_and_tiers(self) -> None:
        assert domain.default_mode == "core"
        assert hosts.assert_tiers(at_least=15).count("full") >= 6

    def test_descriptions_are_one_short_sentence(self) -> None:
        hosts.assert_descriptions_are_one_sentence(max_length=90)
        hosts.assert_no_identity_fields()

    def test_annotations(self) -> None:
        by_action = {c.action: c for c in domain.capabilities}
        assert [a for a, c in by_action.items() if c.annotations.destructive] == ["host_delete"]
        for action in ("system_status", "memory_status", "disk_list", "process_top", "probe_history", "host_export"):
            assert by_action[action].annotations.read_only, action
        # Probes write their result to the history, so they are not read-only.
        assert not by_action["tcp_probe"].annotations.read_only


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds and returns JSON-friendly data."""

    def test_sqlite(self, tmp_path: Path) -> None:
        db = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        hosts.assert_walk_succeeds(db)
        assert count(db, Host, Host.id == 7) == 0  # the delete example's host

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, tmp_path: Path, seed: int) -> None:
        db = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        hosts.assert_walk_succeeds(db, shuffle=seed)
        assert count(db, Host, Host.id == 7) == 0

    def test_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        hosts.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the three hosts tables."""

    harness, tables = hosts, ["hosts_host", "hosts_probe", "hosts_tag"]


class TestSeed:
    """The seed is deterministic and idempotent, and only localhost is a loopback host."""

    def test_ids_follow_the_seed_lists(self, db: Engine) -> None:
        with session_factory(db)() as session:
            hosts = list(session.execute(select(Host.id, Host.name, Host.address).order_by(Host.id)))
        assert hosts[0] == (1, "localhost", "127.0.0.1")
        assert [h.id for h in hosts] == list(range(1, 8)) and hosts[6].name == "bastion-old"
        assert count(db, Probe) == 13 and count(db, HostTag) == 10

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        before = [count(db, t) for t in (Host, HostTag, Probe)]
        seeded(db)
        assert [count(db, t) for t in (Host, HostTag, Probe)] == before


class TestInventory:
    """Hosts have unique names and valid addresses; tags filter and replace; deletes keep history."""

    def test_duplicate_names_are_refused(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"host 2 is already named 'web-01'"):
            call(db, "host_create", name="WEB-01", address="203.0.113.77")
        with pytest.raises(Conflict, match="host 3 is already named"):
            call(db, "host_update", host_id=2, name="web-02")
        twice = call(
            db, "host_import", hosts=[{"name": "x", "address": "203.0.113.1"}, {"name": "X", "address": "::1"}]
        )
        assert [r["action"] for r in twice["results"]] == ["created", "skipped"]
        assert count(db, Host) == 8

    @pytest.mark.parametrize("address", ["999.1.1.1", "not an address", "-bad-.example.com", "a" * 64 + ".com", ""])
    def test_bad_addresses_are_refused(self, address: str) -> None:
        cap = next(c for c in domain.capabilities if c.action == "host_create")
        with pytest.raises(ValidationError):
            cap.input_model.model_validate({"name": "x", "address": address})

    def test_addresses_are_normalised(self, db: Engine) -> None:
        v6 = call(db, "host_create", name="v6", address="2001:DB8:0:0::1")["host"]
        named = call(db, "host_create", name="Named", address="DB-02.Example.COM.")["host"]
        assert (v6["address"], named["address"], named["name"]) == ("2001:db8::1", "db-02.example.com", "named")

    def test_tags_replace_filter_and_dedupe(self, db: Engine) -> None:
        updated = call(db, "host_update", host_id=2, tags=["prod", "nginx", "nginx"])["host"]
        assert updated["tags"] == ["nginx", "prod"]
        assert count(db, HostTag, HostTag.host_id == 2) == 2
        assert [h["id"] for h in call(db, "host_list", tag="nginx")["hosts"]] == [2]
        assert call(db, "host_list", tag="prod")["total"] == 4
        assert [h["name"] for h in call(db, "host_list", name_contains="WEB")["hosts"]] == ["web-01", "web-02"]
        assert call(db, "host_list", role="database")["hosts"][0]["ssh_port"] == 2222

    def test_nothing_to_change_and_bad_port(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(db, "host_update", host_id=2)
        with pytest.raises(ValidationError):
            call(db, "host_update", host_id=2, ssh_port=70000)

    def test_delete_keeps_history_and_ids_are_not_reused(self, db: Engine) -> None:
        assert call(db, "host_delete", host_id=4)["probe_history_kept"] == 3
        assert count(db, Probe, Probe.host_id.is_(None), Probe.target == "203.0.113.20") == 3
        assert call(db, "host_create", name="db-02", address="203.0.113.21")["host"]["id"] == 8
        with pytest.raises(NotFound, match=r"host 4 does not exist; list hosts with hosts\.host_list"):
            call(db, "host_get", host_id=4)

    def test_import_updates_when_asked(self, db: Engine) -> None:
        items = [{"name": "cache-01", "address": "203.0.113.31", "role": "cache", "tags": ["redis"]}]
        assert call(db, "host_import", hosts=items)["skipped"] == 1
        result = call(db, "host_import", hosts=items, update_existing=True)
        assert (result["updated"], result["results"][0]["host_id"]) == (1, 5)
        host = call(db, "host_get", host_id=5)["host"]
        assert (host["address"], host["tags"]) == ("203.0.113.31", ["redis"])

    def test_export_formats(self, db: Engine) -> None:
        rows = call(db, "host_export", format="csv", role="web")["data"].splitlines()
        assert rows == [
            "name,address,role,tags,ssh_port,notes",
            "web-01,203.0.113.10,web,eu-west prod,22,nginx in front of the shop application.",
            "web-02,203.0.113.11,web,eu-west prod,22,Second shop node behind the load balancer.",
        ]
        exported = call(db, "host_export")
        assert exported["count"] == 7 and exported["data"][0]["name"] == "localhost"


class TestProbes:
    """Probes reach real loopback servers, report failures as data, and keep a history."""

    def test_tcp_open_and_closed(self, db: Engine, web: int) -> None:
        opened = call(db, "tcp_probe", address="127.0.0.1", port=web)
        assert opened["reachable"] is True and opened["latency_ms"] >= 0
        assert opened["host_id"] == 1  # the address is localhost's, so the history joins it
        closed = call(db, "tcp_probe", address="127.0.0.1", port=free_port(), timeout=1)
        assert closed == {**closed, "reachable": False, "error": "connection refused"}
        assert call(db, "probe_history", host_id=1, kind="tcp")["total"] == 2

    def test_tcp_defaults_to_the_ssh_port(self, db: Engine) -> None:
        assert call(db, "tcp_probe", host_id=1, timeout=0.5)["port"] == 22

    def test_target_is_exactly_one_of_host_or_address(self, db: Engine) -> None:
        with pytest.raises(ValidationError, match="exactly one of host_id or address"):
            call(db, "tcp_probe", host_id=1, address="127.0.0.1")
        with pytest.raises(ValidationError):
            call(db, "tcp_probe", address="127.0.0.1", timeout=6)
        with pytest.raises(NotFound, match="host 99 does not exist"):
            call(db, "tcp_probe", host_id=99)

    def test_http_status_headers_and_redirects(self, db: Engine, web: int) -> None:
        ok = call(db, "http_probe", url=f"http://127.0.0.1:{web}/health")
        assert (ok["reachable"], ok["status"], ok["headers"]["content-type"]) == (True, 200, "application/json")
        assert ok["body_bytes_read"] == len(b'{"ok": true}')
        assert call(db, "http_probe", url=f"http://localhost:{web}/nope")["status"] == 404
        moved = call(db, "http_probe", url=f"http://127.0.0.1:{web}/old")
        assert (moved["status"], moved["headers"]["location"]) == (301, "/health")
        history = call(db, "probe_history", kind="http", limit=3)["probes"]
        assert [p["status_code"] for p in history] == [301, 404, 200]  # newest first
        assert history[0]["port"] == web

    def test_http_failures_are_data(self, db: Engine, listener: int) -> None:
        refused = call(db, "http_probe", url=f"http://127.0.0.1:{free_port()}/")
        assert refused == {**refused, "reachable": False, "error": "connection refused"}
        # The longest timeout: the listener's thread answers it as soon as it is scheduled, and
        # on a busy machine that can take more than the 2 s this waited before.
        garbage = call(db, "http_probe", url=f"http://127.0.0.1:{listener}/", timeout=PROBE_BOUND)
        assert garbage["reachable"] is False and "did not answer HTTP" in garbage["error"]
        tls = call(db, "http_probe", url=f"https://127.0.0.1:{listener}/", timeout=PROBE_BOUND)
        assert tls["reachable"] is False and tls["error"]

    def test_malformed_urls_are_refused(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="not a valid URL"):
            call(db, "http_probe", url="http://127.0.0.1:99999/")
        with pytest.raises(InvalidRequest, match="names no host"):
            call(db, "http_probe", url="http:///path")
        with pytest.raises(ValidationError):
            call(db, "http_probe", url="ftp://127.0.0.1/")

    def test_port_scan(self, db: Engine, web: int) -> None:
        closed = free_port()
        # The longest per-port timeout: an open loopback port answers at once, however busy.
        result = call(db, "port_scan", host_id=1, ports=[web, closed, web], timeout=2)
        assert result["open_ports"] == [web]
        assert [(r["port"], r["open"]) for r in result["results"]] == [(web, True), (closed, False)]
        assert count(db, Probe, Probe.kind == "scan", Probe.host_id == 1) == 2

    def test_uptime_report(self, db: Engine) -> None:
        report = {h["host_id"]: h for h in call(db, "uptime_report")["hosts"]}
        assert sorted(report) == [2, 3, 4, 5, 6, 7]
        assert (report[4]["probes"], report[4]["reachable"], report[4]["uptime_percent"]) == (3, 2, 66.67)
        assert report[4]["avg_latency_ms"] == 2.1
        assert report[7]["uptime_percent"] == 0 and report[7]["last_reachable_at"] is None
        assert report[2]["last_probe_at"] == "2026-09-01T16:00:00+00:00"
        later = call(db, "uptime_report", since="2026-09-01T16:00:00Z")["hosts"]
        assert {h["host_id"]: h["probes"] for h in later} == {2: 1, 3: 1, 4: 1, 6: 1, 7: 1}
        with pytest.raises(NotFound):
            call(db, "uptime_report", host_id=42)

    def test_history_filters(self, db: Engine) -> None:
        failed = call(db, "probe_history", reachable=False)
        assert [p["id"] for p in failed["probes"]] == [13, 7, 6]
        assert call(db, "probe_history", host_id=2, limit=1, offset=1)["probes"][0]["id"] == 5


class TestMachine:
    """Local-machine facts agree with what psutil reads directly."""

    def test_system_status(self, db: Engine) -> None:
        status = call(db, "system_status")
        assert status["cpu"]["logical"] == psutil.cpu_count() and status["uptime_seconds"] > 0
        assert status["hostname"] == socket.gethostname()

    def test_memory_and_disks(self, db: Engine) -> None:
        assert call(db, "memory_status")["memory"]["total_bytes"] == psutil.virtual_memory().total
        disks = call(db, "disk_list")
        assert disks["total"] == len(psutil.disk_partitions()) and disks["disks"][0]["mountpoint"]
        assert call(db, "disk_list", offset=disks["total"])["disks"] == []

    def test_interfaces_include_loopback(self, db: Engine) -> None:
        listed = call(db, "network_interfaces", limit=200)["interfaces"]
        addresses = {a["address"] for i in listed for a in i["addresses"]}
        assert "127.0.0.1" in addresses

    def test_process_top_is_sorted_and_bounded(self, db: Engine) -> None:
        top = call(db, "process_top", sort_by="memory", limit=3)["processes"]
        assert len(top) == 3 and [p["rss_bytes"] for p in top] == sorted((p["rss_bytes"] for p in top), reverse=True)


class TestErrors:
    """Domain errors name the problem and the tool that fixes it."""

    def test_message(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "host_delete", host_id=404)
        assert str(raised.value) == "not found: host 404 does not exist; list hosts with hosts.host_list"

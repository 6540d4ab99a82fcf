"""The services domain: every capability's example succeeds in any order on a freshly
seeded database and sandbox (SQLite, and PostgreSQL when reachable); real processes start, are
probed, logged and stopped; only processes this domain started are ever signalled; the sandbox
holds; and the migration builds exactly the schema of tables.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from domains.services import sandbox as services_sandbox
from sqlalchemy import Engine, func, select

from domains.services import domain
from domains.services.tables import Service, ServiceEvent
from facade.serving.database import session_factory
from facade.kit import Conflict, Forbidden, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, postgres_schemas, sqlite_engine
from tests.support import free_port

services = DomainHarness(domain, root_env="FACADE_SERVICES_ROOT")
call = services.call


# Helpers and fixtures


def seeded(engine: Engine) -> Engine:
    return services.seeded(services.migrated(engine))


def assert_walk_succeeds(engine: Engine, shuffle: int | None = None) -> None:
    services.assert_walk_succeeds(engine, shuffle=shuffle)
    if shuffle is not None:
        # In another order the heartbeat's start or restart may come after its stop: stop it
        # again, as the walk's tidy-up (idempotent; no example relies on it).
        call(engine, "service_stop", service_id=2)
    # The walk leaves nothing running: every process it started was stopped by it.
    with session_factory(engine)() as session:
        started = list(session.scalars(select(ServiceEvent.pid).where(ServiceEvent.kind == "started")))
        assert started and session.scalar(select(func.count()).where(Service.pid.is_not(None))) == 0
    assert not [pid for pid in started if _alive(pid)]


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def service_row(engine: Engine, service_id: int) -> Service:
    with session_factory(engine)() as session:
        found = session.get(Service, service_id)
        assert found is not None
        return found


def wait_for(check: Callable[[], bool], seconds: float = 60.0) -> bool:
    """Polls until `check` holds: generous, since it returns as soon as it does (a busy machine
    can take seconds to start an interpreter)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FACADE_SERVICES_STOP_TIMEOUT", "3")
    return services.sandbox(tmp_path, monkeypatch)


@pytest.fixture
def strangers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts itself (not through the domain); the test kills them."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()


def _stop_leftovers(engine: Engine) -> None:
    """Kill what a failed test left running; only processes the domain recorded as its own."""
    with session_factory(engine)() as session:
        for service in session.scalars(select(Service).where(Service.pid.is_not(None))):
            try:
                proc = psutil.Process(service.pid)
                if abs(proc.create_time() - (service.pid_created or 0)) < 0.05:
                    proc.kill()
            except psutil.NoSuchProcess:
                pass


@pytest.fixture
def db(root: Path, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database with its sandbox in tmp_path."""
    engine = seeded(sqlite_engine(tmp_path / "facade.db"))
    yield engine
    _stop_leftovers(engine)
    engine.dispose()


@pytest.fixture
def pg_schema() -> Iterator[Callable[[], Engine]]:
    with postgres_schemas(before_drop=_stop_leftovers) as make:
        yield make


def web_service(engine: Engine, root: Path, name: str = "preview") -> tuple[int, int]:
    """A real loopback web server definition on a free port; returns (service id, port)."""
    port = free_port()
    (root / "site").mkdir(parents=True, exist_ok=True)
    (root / "site" / "index.html").write_text("<h1>hello</h1>\n")
    created = call(
        engine,
        "service_create",
        name=name,
        command=f"python3 -m http.server {port} --bind 127.0.0.1",
        working_dir="site",
        port=port,
        health_url=f"http://127.0.0.1:{port}/",
    )
    return created["service"]["id"], port


# Tests


class TestDeclaration:
    """An infrastructure domain with a real catalogue in both tiers."""

    def test_floors_and_tiers(self) -> None:
        assert domain.default_mode == "core" and domain.migrations is not None
        tiers = services.assert_tiers(at_least=15, core_share=(0.5, 0.65))
        assert tiers.count("core") >= 8 and tiers.count("full") >= 6

    def test_descriptions_are_one_short_sentence(self) -> None:
        services.assert_descriptions_are_one_sentence(max_length=100)

    def test_annotations(self) -> None:
        assert {c.action for c in domain.capabilities if c.annotations.destructive} == {"service_delete"}
        reads = {
            "service_get",
            "service_list",
            "service_status",
            "service_logs",
            "service_history",
            "status_report",
            "service_export",
            "process_list",
            "process_inspect",
            "port_list",
        }
        assert {c.action for c in domain.capabilities if c.annotations.read_only} == reads


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds, returns JSON-friendly data, and leaves no process running."""

    def test_sqlite(self, db: Engine) -> None:
        assert_walk_succeeds(db)

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, seed: int) -> None:
        assert_walk_succeeds(db, shuffle=seed)

    def test_postgresql(self, pg_schema: Callable[[], Engine], root: Path) -> None:
        assert_walk_succeeds(seeded(pg_schema()))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the two services tables."""

    harness, tables = services, 2


class TestSeed:
    """The seed is deterministic, idempotent and harmless."""

    def test_ids_and_page(self, db: Engine, root: Path) -> None:
        with session_factory(db)() as session:
            names = list(session.scalars(select(Service.name).order_by(Service.id)))
        assert names == ["static-site", "heartbeat", "legacy-cron"]
        assert (root / "www" / "index.html").read_text().startswith("<!doctype html>")

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        seeded(db)
        with session_factory(db)() as session:
            assert session.scalar(select(func.count()).select_from(Service)) == 3

    def test_health_urls_point_at_this_machine(self, db: Engine) -> None:
        for service in call(db, "service_list")["services"]:
            assert service["health_url"] is None or service["health_url"].startswith("http://127.0.0.1:")


class TestDefinitionRules:
    """Names and ports are unique, commands need no shell, health URLs stay on this machine."""

    def test_unique_name_and_port(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"service 2 is already named 'heartbeat'; choose another name"):
            call(db, "service_create", name="heartbeat", command="sleep 1")
        with pytest.raises(Conflict, match=r"service 1 \(static-site\) already uses port 8701; pick another port"):
            call(db, "service_create", name="clash", command="sleep 1", port=8701)
        with pytest.raises(Conflict, match="already named 'static-site'"):
            call(db, "service_update", service_id=2, name="static-site")

    def test_commands(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match=r"shell operators \['\|'\].*sh -c"):
            call(db, "service_create", name="piped", command="cat log | grep x")
        with pytest.raises(InvalidRequest, match="does not parse.*close its quotes"):
            call(db, "service_create", name="quoted", command="echo 'oops")
        allowed = call(db, "service_create", name="wrapped", command="sh -c 'sleep 1; echo done'")
        assert allowed["service"]["command"] == "sh -c 'sleep 1; echo done'"

    def test_health_url_must_be_loopback(self, db: Engine) -> None:
        for url in ["http://example.com/health", "http://10.0.0.5:8080/", "ftp://127.0.0.1/", "http://127.0.0.1:0/"]:
            with pytest.raises(InvalidRequest, match="must be an http:// URL on this machine"):
                call(db, "service_create", name="remote", command="sleep 1", health_url=url)
        ok = call(db, "service_create", name="local", command="sleep 1", health_url="http://[::1]:9/health")
        assert ok["service"]["health_url"] == "http://[::1]:9/health"

    def test_defaults_and_ids_never_reused(self, db: Engine) -> None:
        first = call(db, "service_create", name="temp", command="sleep 1")["service"]
        assert (first["log_file"], first["working_dir"], first["enabled"]) == ("logs/temp.log", "", True)
        call(db, "service_delete", service_id=first["id"])
        assert call(db, "service_create", name="temp", command="sleep 1")["service"]["id"] == first["id"] + 1
        with pytest.raises(
            NotFound, match=rf"service {first['id']} does not exist; list services with services\.service_list"
        ):
            call(db, "service_get", service_id=first["id"])

    def test_list_filters(self, db: Engine) -> None:
        assert [s["name"] for s in call(db, "service_list", enabled=False)["services"]] == ["legacy-cron"]
        assert [s["name"] for s in call(db, "service_list", search="HTTP.SERVER")["services"]] == ["static-site"]
        assert call(db, "service_list", search="%")["total"] == call(db, "service_list", search="_")["total"] == 0


class TestSandbox:
    """Working folders and log files stay inside the services root."""

    def test_climbing_absolute_and_nul_are_refused(self, db: Engine, root: Path, tmp_path: Path) -> None:
        for field, path, message in [
            ("working_dir", "../outside", "uses '..'"),
            ("log_file", "logs/../../x.log", "uses '..'"),
            ("working_dir", str(tmp_path / "elsewhere"), "is outside the services root"),
            ("log_file", "/etc/passwd", "is outside the services root"),
            ("log_file", "logs/a\x00.log", "NUL byte"),
        ]:
            with pytest.raises(Forbidden, match=message):
                call(db, "service_create", name="escape", command="sleep 1", **{field: path})

    def test_links_out_of_the_root_are_refused(self, db: Engine, root: Path, tmp_path: Path) -> None:
        (tmp_path / "secret").mkdir()
        (root / "door").symlink_to(tmp_path / "secret")
        with pytest.raises(Forbidden, match="leads outside the services root through a link"):
            call(db, "service_create", name="escape", command="sleep 1", log_file="door/x.log")
        # A link made after the definition is caught when the service starts.
        made = call(db, "service_create", name="later", command="sleep 30", working_dir="spot")["service"]
        (root / "spot").symlink_to(tmp_path / "secret")
        with pytest.raises(Forbidden):
            call(db, "service_start", service_id=made["id"])
        assert not list((tmp_path / "secret").iterdir())

    def test_absolute_paths_inside_are_stored_relative(self, db: Engine, root: Path) -> None:
        made = call(db, "service_create", name="inside", command="sleep 1", log_file=str(root / "logs" / "in.log"))
        assert made["service"]["log_file"] == "logs/in.log"
        with pytest.raises(InvalidRequest, match="is a folder"):
            call(db, "service_update", service_id=made["service"]["id"], log_file="logs/")


class TestLifecycle:
    """Real processes: started detached, probed, logged, stopped; states reported as data."""

    def test_web_server_runs_answers_and_stops(self, db: Engine, root: Path) -> None:
        service_id, port = web_service(db, root)
        before = call(db, "service_status", service_id=service_id)
        assert before["state"] == "stopped" and before["port"]["reachable"] is False
        assert before["health"]["reachable"] is False and "error" in before["health"]
        started = call(db, "service_start", service_id=service_id)
        assert started["changed"] is True
        assert wait_for(lambda: call(db, "service_status", service_id=service_id)["health"]["reachable"])
        status = call(db, "service_status", service_id=service_id)
        assert status["state"] == "running" and status["process"]["pid"] == started["pid"]
        assert status["process"]["started_by_facade"] is True and status["port"]["reachable"] is True
        assert (status["health"]["status_code"], status["health"]["healthy"]) == (200, True)
        assert call(db, "service_start", service_id=service_id)["changed"] is False
        assert wait_for(
            lambda: any(
                '"GET / HTTP/1.1" 200' in line for line in call(db, "service_logs", service_id=service_id)["lines"]
            )
        )
        stopped = call(db, "service_stop", service_id=service_id)
        assert (stopped["changed"], stopped["pid"], stopped["killed"]) == (True, started["pid"], False)
        assert not _alive(started["pid"])
        after = call(db, "service_status", service_id=service_id)
        assert after["state"] == "stopped" and after["port"]["reachable"] is False
        assert call(db, "service_stop", service_id=service_id)["changed"] is False
        kinds = [e["kind"] for e in call(db, "service_history", service_id=service_id)["events"]]
        assert kinds == ["stopped", "started"]
        lines = call(db, "service_logs", service_id=service_id, lines=1)["lines"]
        assert lines[0].endswith(f"stopped pid {started['pid']} (exit code -15)")

    def test_the_service_gets_no_server_secrets(self, db: Engine, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_OPERATOR_TOKEN", "s3cret")
        made = call(db, "service_create", name="env-dump", command="sh -c 'env; sleep 30'", port=free_port())["service"]
        call(db, "service_start", service_id=made["id"])
        assert wait_for(
            lambda: any(
                line.startswith("SERVICE_NAME=") for line in call(db, "service_logs", service_id=made["id"])["lines"]
            )
        )
        lines = call(db, "service_logs", service_id=made["id"], lines=100)["lines"]
        assert f"PORT={made['port']}" in lines and not [
            line for line in lines if "s3cret" in line or line.startswith("FACADE_")
        ]
        call(db, "service_stop", service_id=made["id"])

    def test_refusals_before_starting(self, db: Engine, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        # The start waits on the child's exit for up to the grace: the longest grace, so that a
        # busy machine's slow interpreter start still counts as "at once" (it failed at 0.3 s).
        monkeypatch.setenv("FACADE_SERVICES_START_GRACE", "10")
        with pytest.raises(
            Conflict, match=r"service 3 is disabled; enable it with services\.service_update enabled=true"
        ):
            call(db, "service_start", service_id=3)
        missing = call(db, "service_create", name="ghost", command="no-such-program-xyz --serve")["service"]
        with pytest.raises(InvalidRequest, match="'no-such-program-xyz' is not a program on this machine's PATH"):
            call(db, "service_start", service_id=missing["id"])
        failing = call(db, "service_create", name="crasher", command="python3 -c 'import sys; sys.exit(3)'")["service"]
        with pytest.raises(InvalidRequest, match=r"exited at once with code 3; read why with services\.service_logs"):
            call(db, "service_start", service_id=failing["id"])
        assert service_row(db, failing["id"]).pid is None

    def test_a_port_in_use_is_refused(self, db: Engine, root: Path) -> None:
        service_id, port = web_service(db, root)
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", port))
            listener.listen()
            with pytest.raises(Conflict, match=rf"port {port} on 127.0.0.1 is already in use"):
                call(db, "service_start", service_id=service_id)
            found = call(db, "port_list", port=port)
            assert found["ports"][0]["pid"] == os.getpid() and found["ports"][0]["service"] == "preview"

    def test_running_definitions_are_frozen_and_not_deleted(self, db: Engine) -> None:
        call(db, "service_start", service_id=2)
        with pytest.raises(
            Conflict,
            match=r"service 2 is running \(pid \d+\); stop it with services\.service_stop before changing command",
        ):
            call(db, "service_update", service_id=2, command="sleep 10")
        assert (
            call(db, "service_update", service_id=2, description="still editable")["service"]["description"]
            == "still editable"
        )
        with pytest.raises(Conflict, match="before deleting it"):
            call(db, "service_delete", service_id=2)
        call(db, "service_stop", service_id=2)
        assert call(db, "service_delete", service_id=2)["removed_events"] == 2

    def test_stubborn_process_is_killed(self, db: Engine, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_SERVICES_STOP_TIMEOUT", "0.5")
        script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); "
        script += "time.sleep(60)"
        made = call(db, "service_create", name="stubborn", command=f'python3 -c "{script}"')["service"]
        call(db, "service_start", service_id=made["id"])
        assert wait_for(lambda: "ready" in call(db, "service_logs", service_id=made["id"])["lines"])
        stopped = call(db, "service_stop", service_id=made["id"])
        assert stopped["killed"] is True and stopped["exit_code"] == -signal.SIGKILL
        assert call(db, "service_history", service_id=made["id"])["events"][0]["kind"] == "killed"

    def test_a_process_that_died_is_noticed(self, db: Engine) -> None:
        pid = call(db, "service_start", service_id=2)["pid"]
        os.kill(pid, signal.SIGKILL)  # the test's own doing: the domain never signals like this
        assert wait_for(lambda: not _alive(pid))
        status = call(db, "service_status", service_id=2)
        assert status["state"] == "stopped" and status["note"] == f"pid {pid}, which this domain started, has exited"
        assert call(db, "service_stop", service_id=2) == {
            "service": {"id": 2, "name": "heartbeat"},
            "changed": False,
            "running": False,
            "exited_before": pid,
        }
        assert call(db, "service_history", service_id=2)["events"][0]["kind"] == "exited"


class TestOnlyOwnProcesses:
    """A process this domain did not start is reported, never signalled."""

    def test_same_command_started_elsewhere(self, db: Engine, strangers: list[subprocess.Popen[bytes]]) -> None:
        made = call(db, "service_create", name="napper", command="sleep 301")["service"]
        folder = services_sandbox.resolve(made["working_dir"])
        folder.mkdir(parents=True, exist_ok=True)
        # The same command in another folder (another sandbox, another user) is not this service.
        elsewhere = subprocess.Popen(["sleep", "301"])
        strangers.append(elsewhere)
        assert call(db, "service_status", service_id=made["id"])["state"] == "stopped"
        # In the service's own folder it is: reported as unmanaged, never signalled.
        stranger = subprocess.Popen(["sleep", "301"], cwd=folder)
        strangers.append(stranger)
        assert wait_for(lambda: call(db, "service_status", service_id=made["id"])["state"] == "unmanaged")
        status = call(db, "service_status", service_id=made["id"])
        assert status["process"]["pid"] == stranger.pid and status["process"]["started_by_facade"] is False
        with pytest.raises(
            Conflict, match=rf"already runs as pid {stranger.pid}, which this domain did not start and will not signal"
        ):
            call(db, "service_stop", service_id=made["id"])
        with pytest.raises(Conflict, match="will not signal"):
            call(db, "service_start", service_id=made["id"])
        assert stranger.poll() is None

    def test_a_reused_pid_is_not_signalled(self, db: Engine, strangers: list[subprocess.Popen[bytes]]) -> None:
        stranger = subprocess.Popen(["sleep", "302"])
        strangers.append(stranger)
        with session_factory(db)() as session:  # as if our process died and the OS gave its pid away
            service = session.get(Service, 2)
            assert service is not None
            service.pid, service.pid_created = stranger.pid, psutil.Process(stranger.pid).create_time() - 100
            session.commit()
        assert call(db, "service_status", service_id=2)["state"] == "stopped"
        assert call(db, "service_stop", service_id=2)["changed"] is False
        assert stranger.poll() is None and service_row(db, 2).pid is None


class TestLogs:
    """A log is read from its end, within the byte limit."""

    def test_missing_and_cut_logs(self, db: Engine, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        assert call(db, "service_logs", service_id=1) == {
            "service": {"id": 1, "name": "static-site"},
            "log_file": "logs/static-site.log",
            "exists": False,
            "lines": [],
        }
        (root / "logs").mkdir(parents=True, exist_ok=True)
        (root / "logs" / "static-site.log").write_text("".join(f"line {i:04d}\n" for i in range(1000)))
        assert call(db, "service_logs", service_id=1, lines=3)["lines"] == ["line 0997", "line 0998", "line 0999"]
        monkeypatch.setenv("FACADE_SERVICES_MAX_LOG_BYTES", "25")
        assert call(db, "service_logs", service_id=1, lines=10)["lines"] == ["line 0998", "line 0999"]


class TestMachine:
    """Processes and ports of the whole machine, read-only."""

    def test_process_list_and_inspect(self, db: Engine) -> None:
        pid = call(db, "service_start", service_id=2)["pid"]
        listed = call(db, "process_list", name="sleep", limit=200)["processes"]
        assert {"pid": pid, "service": "heartbeat"}.items() <= next(p for p in listed if p["pid"] == pid).items()
        details = call(db, "process_inspect", pid=pid)["process"]
        assert details["command"] == ["sleep", "300"] and details["service"] == "heartbeat"
        assert details["parent"] is not None and details["cwd"] == str(
            Path(os.environ["FACADE_SERVICES_ROOT"]).resolve()
        )
        assert "environ" not in details
        call(db, "service_stop", service_id=2)
        with pytest.raises(
            NotFound, match=rf"process {pid} does not exist; list processes with services\.process_list"
        ):
            call(db, "process_inspect", pid=pid)

    def test_paging(self, db: Engine) -> None:
        page = call(db, "process_list", limit=2, offset=1)
        assert len(page["processes"]) == 2 and page["total"] >= 3
        assert page["processes"][0]["pid"] < page["processes"][1]["pid"]


class TestImportExportReport:
    """Definitions round-trip through export and import; the report counts what it found."""

    def test_round_trip(self, db: Engine, tmp_path: Path) -> None:
        exported = call(db, "service_export")
        other = seeded(sqlite_engine(tmp_path / "other.db"))
        with session_factory(other)() as session:
            session.execute(Service.__table__.delete())
            session.commit()
        result = call(other, "service_import", services=exported["services"])
        assert result["succeeded"] == 3 and [r["action"] for r in result["results"]] == ["created"] * 3
        assert call(other, "service_export")["services"] == exported["services"]

    def test_replace_and_per_item_failures(self, db: Engine) -> None:
        result = call(
            db,
            "service_import",
            replace_existing=True,
            services=[
                {"name": "heartbeat", "command": "sleep 600", "description": "Longer nap."},
                {"name": "remote", "command": "sleep 1", "health_url": "http://example.com/"},
                {"name": "fresh", "command": "sleep 2"},
            ],
        )
        assert [r["ok"] for r in result["results"]] == [True, False, True]
        assert result["results"][0]["action"] == "updated" and "must be an http:// URL" in result["results"][1]["error"]
        assert service_row(db, 2).command == "sleep 600"
        assert [s["name"] for s in call(db, "service_list")["services"]] == [
            "static-site",
            "heartbeat",
            "legacy-cron",
            "fresh",
        ]

    def test_status_report(self, db: Engine) -> None:
        call(db, "service_start", service_id=2)
        report = call(db, "status_report")
        assert report["total"] == 2 and report["counts"] == {"running": 1, "unmanaged": 0, "stopped": 1}
        assert report["unhealthy"] == ["static-site"]
        assert call(db, "status_report", enabled_only=False)["total"] == 3
        call(db, "service_stop", service_id=2)

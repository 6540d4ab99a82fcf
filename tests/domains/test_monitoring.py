"""The monitoring domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable), probes measure the real machine (and
only loopback), alerts follow the checks' states, and the migration builds exactly the schema
of tables.py."""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.monitoring import domain
from domains.monitoring.tables import Alert, Check, Result, Sample
from facade.serving.database import session_factory
from facade.kit import Conflict, Forbidden, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, count

monitoring = DomainHarness(domain, root_env="FACADE_MONITORING_ROOT")
call, migrated, seeded = monitoring.call, monitoring.migrated, monitoring.seeded
LOCAL_KINDS = {"disk", "process", "file_age"}


# Helpers and fixtures


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def host_of(kind: str, target: str) -> str:
    return urlsplit(target).hostname or "" if kind == "http" else target.rpartition(":")[0]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


@pytest.fixture
def http_server() -> Iterator[str]:
    """An HTTP server on 127.0.0.1: /ok answers 200, /moved redirects, anything else 503."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server API)
            if self.path == "/moved":  # to a closed loopback port: following it would fail the check
                self.send_response(302)
                self.send_header("Location", f"http://127.0.0.1:{closed_port()}/")
            else:
                self.send_response(200 if self.path == "/ok" else 503)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FACADE_MONITORING_PROBE_TIMEOUT_SECONDS", "1")
    return monitoring.sandbox(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return monitoring.template(tmp_path_factory.mktemp("monitoring-template"))


@pytest.fixture
def db(root: Path, tmp_path: Path, template: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database with its seeded sandbox."""
    with monitoring.copy(template, tmp_path) as engine:
        os.utime(root / "heartbeats/nightly-backup.ok")  # fresh, as the seed leaves it
        yield engine


def new_check(engine: Engine, kind: str, target: str, **extra: Any) -> int:
    name = f"{kind}-{uuid.uuid4().hex[:6]}"
    return call(engine, "check_create", name=name, kind=kind, target=target, **extra)["check"]["id"]


def run_one(engine: Engine, check_id: int) -> dict[str, Any]:
    return call(engine, "check_run", check_id=check_id)["results"][0]


# Tests


class TestCatalogue:
    """A real catalogue: enough capabilities in both tiers, one-sentence descriptions, honest
    annotations, and examples that probe only this machine."""

    def test_floors_and_tiers(self) -> None:
        monitoring.assert_tiers(at_least=15)
        assert domain.default_mode == "core"

    def test_descriptions_are_one_short_sentence(self) -> None:
        monitoring.assert_descriptions_are_one_sentence(max_length=100)
        monitoring.assert_no_identity_fields()

    def test_annotations(self) -> None:
        destructive = {c.action for c in domain.capabilities if c.annotations.destructive}
        assert destructive == {"check_delete", "silence_delete", "result_purge"}
        reads = {c.action for c in domain.capabilities if c.annotations.read_only}
        assert {"check_get", "check_list", "result_list", "alert_list", "uptime_report"} <= reads
        assert not reads & destructive

    def test_examples_and_enabled_seeded_checks_probe_only_loopback(self) -> None:
        from domains.monitoring.seed import CHECKS

        for cap in domain.capabilities:
            example = cap.example or {}
            if "target" in example and example.get("kind") in ("tcp", "http"):
                assert is_loopback(host_of(example["kind"], example["target"])), cap.name
        for name, kind, target, *_rest, enabled in CHECKS:
            if enabled and kind not in LOCAL_KINDS:
                assert is_loopback(host_of(kind, target)), name


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seed, succeeds."""

    def test_sqlite(self, db: Engine) -> None:
        monitoring.assert_walk_succeeds(db)

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, seed: int) -> None:
        monitoring.assert_walk_succeeds(db, shuffle=seed)

    def test_postgresql(self, root: Path, pg_schema: Callable[[], Engine]) -> None:
        monitoring.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the five monitoring tables."""

    harness, tables = monitoring, 5


class TestSeed:
    """The seed is deterministic and idempotent."""

    def test_ids_and_states(self, db: Engine) -> None:
        with session_factory(db)() as session:
            states = [tuple(row) for row in session.execute(select(Check.id, Check.state).order_by(Check.id))]
        assert states == [(1, "ok"), (2, "ok"), (3, "warn"), (4, "ok"), (5, "ok"), (6, "unknown"), (7, "critical")]
        assert count(db, Result) == 144 and count(db, Sample) == 24
        assert count(db, Alert, Alert.closed_at.is_(None)) == 2

    def test_seeding_twice_adds_nothing(self, db: Engine, root: Path) -> None:
        (root / "heartbeats/nightly-backup.ok").write_text("touched by the job\n")
        seeded(db)
        assert count(db, Check) == 7 and count(db, Result) == 144 and count(db, Alert) == 3
        assert (root / "heartbeats/nightly-backup.ok").read_text() == "touched by the job\n"


class TestProbes:
    """Each kind measures the real machine; a target that is down is a result, not an error."""

    def test_tcp(self, db: Engine, listener: int) -> None:
        up = run_one(db, new_check(db, "tcp", f"127.0.0.1:{listener}"))
        assert up["state"] == "ok" and up["value"] is not None and "connected" in up["message"]
        down = run_one(db, new_check(db, "tcp", f"localhost:{closed_port()}"))
        assert down["state"] == "critical" and down["value"] is None and "unreachable" in down["message"]
        assert down["alert"]["event"] == "opened"

    def test_http(self, db: Engine, http_server: str) -> None:
        assert run_one(db, new_check(db, "http", f"{http_server}/ok"))["state"] == "ok"
        moved = run_one(db, new_check(db, "http", f"{http_server}/moved"))
        assert moved["state"] == "ok" and "HTTP 302" in moved["message"]  # answered; not followed
        failing = run_one(db, new_check(db, "http", f"{http_server}/broken"))
        assert failing["state"] == "critical" and "HTTP 503" in failing["message"]
        gone = run_one(db, new_check(db, "http", f"http://127.0.0.1:{closed_port()}/"))
        assert gone["state"] == "critical" and gone["value"] is None

    def test_disk(self, db: Engine) -> None:
        measured = run_one(db, new_check(db, "disk", "/", warn_threshold=99.9, critical_threshold=100))
        assert measured["state"] == "ok" and 0 < measured["value"] < 100 and measured["unit"] == "percent"
        assert run_one(db, new_check(db, "disk", "/definitely/not/here"))["state"] == "critical"
        strict = run_one(db, new_check(db, "disk", "/", warn_threshold=0, critical_threshold=0))
        assert strict["state"] == "critical"  # at or above the threshold is bad

    def test_process(self, db: Engine) -> None:
        ours = run_one(db, 4)
        assert ours["state"] == "ok" and ours["value"] >= 1  # this test runs in python
        none = run_one(db, new_check(db, "process", "no-such-process-xyz"))
        assert none["state"] == "critical" and none["value"] == 0

    def test_file_age(self, db: Engine, root: Path) -> None:
        assert run_one(db, 5)["state"] == "ok"
        assert run_one(db, 7)["state"] == "critical"
        (root / "heartbeats/report-export.ok").unlink()
        missing = run_one(db, 7)
        assert missing["state"] == "critical" and missing["value"] is None

    def test_run_all_runs_only_enabled_checks(self, db: Engine) -> None:
        results = call(db, "check_run")["results"]
        assert [r["check_id"] for r in results] == [1, 2, 3, 4, 5, 7]  # 6, the fictional host, is off
        assert call(db, "check_get", check_id=1)["recent_results"][0]["result_id"] == results[0]["result_id"]


class TestValidation:
    """Targets and thresholds must fit the kind; names are unique."""

    @pytest.mark.parametrize(
        ("kind", "target"),
        [("tcp", "127.0.0.1"), ("tcp", "127.0.0.1:99999"), ("http", "ftp://127.0.0.1/"), ("disk", "relative"),
         ("process", "/usr/bin/python")],
    )
    def test_bad_targets(self, db: Engine, kind: str, target: str) -> None:
        with pytest.raises(InvalidRequest, match="give|absolute"):
            new_check(db, kind, target)

    @pytest.mark.parametrize("target", ["../etc/passwd", "/etc/passwd", "heartbeats/\x00x"])
    def test_file_age_targets_stay_in_the_sandbox(self, db: Engine, target: str) -> None:
        with pytest.raises(Forbidden):
            new_check(db, "file_age", target)

    def test_links_out_of_the_sandbox_are_refused(self, db: Engine, root: Path, tmp_path: Path) -> None:
        (tmp_path / "secret").write_text("x")
        (root / "heartbeats/link.ok").symlink_to(tmp_path / "secret")
        with pytest.raises(Forbidden, match="outside the monitoring sandbox"):
            new_check(db, "file_age", "heartbeats/link.ok")

    def test_threshold_order_follows_the_direction(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="warn must not exceed critical"):
            new_check(db, "disk", "/", warn_threshold=95, critical_threshold=90)
        with pytest.raises(InvalidRequest, match="warn must not be under critical"):
            new_check(db, "process", "python", warn_threshold=1, critical_threshold=2)
        with pytest.raises(InvalidRequest, match="critical_threshold"):
            call(db, "check_update", check_id=3, warn_threshold=95)
        created = call(db, "check_get", check_id=new_check(db, "file_age", "heartbeats/nightly-backup.ok"))["check"]
        assert (created["warn_threshold"], created["critical_threshold"]) == (90_000, 180_000)

    def test_names_are_unique_ignoring_case(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="check 1 is already named"):
            call(db, "check_create", name="POSTGRES", kind="disk", target="/")
        with pytest.raises(ValidationError):
            call(db, "check_create", name="x", kind="smtp", target="127.0.0.1:25")

    def test_missing_records_name_the_list_tool(self, db: Engine) -> None:
        with pytest.raises(NotFound, match=r"check 99 does not exist; list checks with monitoring\.check_list"):
            call(db, "check_run", check_id=99)
        with pytest.raises(NotFound, match="check 99"):
            call(db, "result_list", check_id=99)


class TestAlerts:
    """A check that leaves ok opens an alert; worse escalates, better de-escalates, ok closes."""

    def test_lifecycle(self, db: Engine, root: Path) -> None:
        check_id = new_check(db, "file_age", "heartbeats/nightly-backup.ok", warn_threshold=100, critical_threshold=200)
        beat = root / "heartbeats/nightly-backup.ok"

        def age(seconds: float) -> dict[str, Any]:
            stamp = time.time() - seconds
            os.utime(beat, (stamp, stamp))
            return run_one(db, check_id)["alert"]

        opened = age(150)
        assert opened["event"] == "opened" and opened["severity"] == "warn"
        call(db, "alert_acknowledge", alert_id=opened["alert_id"])
        assert age(300) == {"alert_id": opened["alert_id"], "event": "escalated", "severity": "critical"}
        again = call(db, "alert_list", check_id=check_id)["alerts"][0]
        assert again["acknowledged_at"] is None  # worse news needs someone to look again
        assert age(150)["event"] == "deescalated"
        assert age(150) is None
        assert age(0) == {"alert_id": opened["alert_id"], "event": "closed"}
        assert call(db, "check_get", check_id=check_id)["check"]["open_alert"] is None

    def test_silence_suppresses_new_alerts_only(self, db: Engine) -> None:
        check_id = new_check(db, "tcp", f"127.0.0.1:{closed_port()}")
        silence = call(db, "silence_create", check_id=check_id, minutes=30, reason="maintenance")["silence"]
        muted = run_one(db, check_id)
        assert muted["silenced"] is True and muted["alert"]["event"] == "suppressed by a silence"
        assert call(db, "check_get", check_id=check_id)["check"]["silence"]["silence_id"] == silence["id"]
        assert call(db, "silence_delete", silence_id=silence["id"])["was_active"] is True
        assert run_one(db, check_id)["alert"]["event"] == "opened"

    def test_silence_rules(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="exactly one of minutes and until"):
            call(db, "silence_create", check_id=1, reason="x")
        with pytest.raises(InvalidRequest, match="before it starts"):
            call(db, "silence_create", check_id=1, until="2020-01-01T00:00:00Z", reason="x")
        until = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        first = call(db, "silence_create", check_id=1, until=until, reason="x")["silence"]["id"]
        with pytest.raises(Conflict, match=f"silence {first}.*monitoring.silence_delete"):
            call(db, "silence_create", check_id=1, minutes=5, reason="y")

    def test_acknowledging(self, db: Engine) -> None:
        assert call(db, "alert_acknowledge", alert_id=1, note="on it")["changed"] is True
        repeat = call(db, "alert_acknowledge", alert_id=1, note="still on it")
        assert repeat["changed"] is False and repeat["alert"]["note"] == "on it\nstill on it"
        with pytest.raises(Conflict, match="alert 2 closed"):
            call(db, "alert_acknowledge", alert_id=2)
        bulk = call(db, "alert_bulk_acknowledge", alert_ids=[3, 2, 404, 3])
        assert [r["ok"] for r in bulk["results"]] == [True, False, False]
        assert [a["id"] for a in call(db, "alert_list", open=True, acknowledged=False)["alerts"]] == []

    def test_disabling_closes_open_alerts(self, db: Engine) -> None:
        closed = call(db, "check_bulk_set_enabled", check_ids=[7, 6, 99], enabled=False)
        assert [r.get("closed_alert_ids") for r in closed["results"]] == [[1], None, None]
        assert [r["ok"] for r in closed["results"]] == [True, True, False]
        assert call(db, "check_update", check_id=3, enabled=False)["check"]["open_alert"] is None
        assert count(db, Alert, Alert.closed_at.is_(None)) == 0

    def test_delete_cascades(self, db: Engine) -> None:
        result = call(db, "check_delete", check_id=2)
        assert result == {"deleted": {"check_id": 2}, "deleted_results": 24, "deleted_alerts": 1}
        assert count(db, Result, Result.check_id == 2) == 0
        assert new_check(db, "disk", "/") == 8  # ids are never reused


class TestReports:
    """Reports, statistics, export and purge read the recorded history."""

    DAY = {"since": "2026-09-01T00:00:00Z", "until": "2026-09-02T00:00:00Z"}

    def test_uptime(self, db: Engine) -> None:
        report = call(db, "uptime_report", sla_percent=99.5, **self.DAY)
        by_id = {c["check_id"]: c for c in report["checks"]}
        assert by_id[2]["critical"] == 2 and by_id[2]["uptime_percent"] == pytest.approx(91.667)
        assert by_id[3]["warn"] == 6 and by_id[3]["uptime_percent"] == 100.0  # warn still counts as up
        assert by_id[7]["critical"] == 16 and by_id[7]["critical_seconds_estimate"] == 16 * 600
        assert report["missing_sla"] == [2, 7] and 6 not in by_id
        with pytest.raises(InvalidRequest, match="is not before until"):
            call(db, "uptime_report", since=self.DAY["until"], until=self.DAY["since"])

    def test_alert_report(self, db: Engine) -> None:
        report = call(db, "alert_report", **self.DAY)
        assert report["alerts"] == 2  # alert 1 opened on 31 August
        outage = next(c for c in report["checks"] if c["check_id"] == 2)
        assert outage["mean_seconds_to_acknowledge"] == 420 and outage["mean_seconds_to_close"] == 7200

    def test_sample_stats(self, db: Engine) -> None:
        stats = call(db, "sample_stats", metric="cpu_percent", **self.DAY)
        assert (stats["count"], stats["min"], stats["max"], stats["median"], stats["p95"]) == (24, 5, 51, 18.5, 49)
        taken = call(db, "sample_create")["sample"]
        assert 0 <= taken["cpu_percent"] <= 100 and taken["memory_used_bytes"] > 0
        assert call(db, "sample_stats", metric="load_1")["count"] == 1  # the default window: the last 7 days
        with pytest.raises(InvalidRequest, match="disk usage"):
            call(db, "sample_create", disk_path="/no/such/mount")

    def test_export_and_history(self, db: Engine) -> None:
        csv_text = call(db, "result_export", check_id=2, format="csv", **self.DAY)["data"]
        lines = csv_text.splitlines()
        assert lines[0].startswith("result_id,check_id,checked_at,state") and len(lines) == 25
        assert sum(",critical," in line for line in lines) == 2
        capped = call(db, "result_export", limit=10)
        assert capped["count"] == 10 and capped["truncated"] is True
        warn = call(db, "result_list", check_id=3, state="warn", limit=2, offset=4)
        assert warn["total"] == 6 and len(warn["results"]) == 2

    def test_purge(self, db: Engine) -> None:
        assert call(db, "result_purge", before="2026-09-01T06:00:00Z", check_id=1)["deleted_results"] == 6
        assert call(db, "result_purge", before="2026-09-01T06:00:00Z")["deleted_results"] == 30
        assert count(db, Result) == 108
        assert call(db, "check_get", check_id=3)["check"]["state"] == "warn"  # status outlives history

"""The demo data set: seven checks of this machine (every enabled one probes loopback or local
state; the one fictional host is disabled), a day of hourly results on 1 September 2026 with a
short outage and two slow degradations, the alerts those opened, an expired silence, and a day
of metric samples. Written only into an empty domain, so ids are 1..N on a fresh database."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.monitoring.runner import thresholds_text
from domains.monitoring.sandbox import root
from domains.monitoring.tables import Alert, Check, Result, Sample, Silence

DAY = datetime(2026, 9, 1, tzinfo=UTC)
HOURS = [DAY + timedelta(hours=h) for h in range(24)]

# name, kind, target, warn, critical, interval, enabled
CHECKS = [
    ("postgres", "tcp", "127.0.0.1:5432", 100.0, 1000.0, 60, True),
    ("facade-health", "http", "http://127.0.0.1:8765/healthz", 500.0, 2000.0, 60, True),
    ("root-disk", "disk", "/", 80.0, 90.0, 300, True),
    ("python-workers", "process", "python", None, 1.0, 60, True),
    ("nightly-backup-heartbeat", "file_age", "heartbeats/nightly-backup.ok", 93_600.0, 180_000.0, 600, True),
    ("mail-relay", "tcp", "mail.example.internal:25", 200.0, 1000.0, 60, False),
    ("report-export-heartbeat", "file_age", "heartbeats/report-export.ok", 93_600.0, 180_000.0, 600, True),
]
UNITS = {"tcp": "ms", "http": "ms", "disk": "percent", "process": "processes", "file_age": "seconds"}
CPU = [8, 7, 6, 6, 5, 6, 9, 18, 35, 42, 47, 51, 44, 40, 46, 49, 45, 38, 27, 19, 14, 12, 10, 9]


def _reading(check: int, hour: int) -> tuple[str, float | None, str]:
    """State, value and message of a seeded check at an hour of the demo day."""
    if check == 1:
        value = round(1.5 + (hour % 5) * 0.7, 3)
        return "ok", value, f"connected in {value:g} ms"
    if check == 2:
        if hour in (10, 11):  # the 10:00 deploy took the health endpoint down for two runs
            return "critical", None, "unreachable: Connection refused"
        value = 12.0 + (hour % 4) * 3
        return "ok", value, f"HTTP 200 in {value:g} ms"
    if check == 3:
        value = 71.0 + hour * 0.5  # log growth fills the disk through the day
        return ("warn" if value >= 80 else "ok"), value, f"{value:g}% used"
    if check == 4:
        return "ok", 3.0, "3 processes named python*"
    if check == 5:
        value = 3600.0 * ((hour + 22) % 24)  # the backup touches its heartbeat at 02:00
        return "ok", value, f"{value:.0f} s ago"
    value = 151_200.0 + 3600 * hour  # the report export has not run since 30 August, 06:00
    return ("critical" if value >= 180_000 else "warn"), value, f"{value:.0f} s ago"


def seed(session: Session) -> None:
    """Write the heartbeat files when the sandbox is empty, and the rows when there are no
    checks; each part is skipped when present, so seeding is idempotent."""
    base = root()
    if not any(base.iterdir()):
        beats = base / "heartbeats"
        beats.mkdir()
        (beats / "nightly-backup.ok").write_text("nightly backup finished\n")  # fresh: just ran
        stale = beats / "report-export.ok"
        stale.write_text("report export finished\n")
        os.utime(stale, (datetime(2026, 8, 30, 6, 0, tzinfo=UTC).timestamp(),) * 2)
    if session.scalar(select(Check.id).limit(1)) is not None:
        return
    created = DAY - timedelta(days=10)
    checks = [
        Check(
            name=name,
            kind=kind,
            target=target,
            warn_threshold=warn,
            critical_threshold=critical,
            interval_seconds=interval,
            enabled=enabled,
            created_at=created,
            updated_at=created,
        )
        for name, kind, target, warn, critical, interval, enabled in CHECKS
    ]
    session.add_all(checks)
    session.flush()
    for hour, at in enumerate(HOURS):
        for number, check in enumerate(checks, start=1):
            if not check.enabled:
                continue
            state, value, detail = _reading(number, hour)
            session.add(
                Result(
                    check_id=check.id,
                    checked_at=at,
                    state=state,
                    value=value,
                    unit=UNITS[check.kind],
                    warn_threshold=check.warn_threshold,
                    critical_threshold=check.critical_threshold,
                    duration_ms=value if check.kind in ("tcp", "http") and value else 0.4,
                    message=f"{detail} ({thresholds_text(check.kind, check.warn_threshold, check.critical_threshold)})",
                    silenced=number == 2 and hour == 11,
                )
            )
            if state != check.state:
                check.state, check.state_since = state, at
            check.last_value, check.last_checked_at = value, at
        session.flush()
    # Opened in time order: the stale export (open since it went warn on 31 August, critical now),
    # the deploy outage (closed), the filling disk (open).
    session.add_all(
        [
            Alert(check_id=7, severity="critical", message="180000 s ago", opened_at=DAY - timedelta(hours=16)),
            Alert(check_id=2, severity="critical", message="unreachable: Connection refused", opened_at=HOURS[10],
                  closed_at=HOURS[12], acknowledged_at=HOURS[10] + timedelta(minutes=7), acknowledged_by="infra",
                  note="deploy of facade 2.3 in progress"),
            Alert(check_id=3, severity="warn", message="80% used", opened_at=HOURS[18]),
        ]
    )
    session.add(
        Silence(
            check_id=2,
            starts_at=HOURS[10] + timedelta(minutes=8),
            ends_at=HOURS[12],
            reason="deploying facade 2.3",
            created_by="infra",
            created_at=HOURS[10] + timedelta(minutes=8),
        )
    )
    session.flush()
    session.add_all(
        [
            Sample(
                taken_at=at + timedelta(minutes=30),
                cpu_percent=float(cpu),
                memory_percent=55.0 + hour % 6,
                memory_used_bytes=(4_400 + 80 * (hour % 6)) * 2**20,
                disk_path="/",
                disk_percent=71.0 + hour * 0.5,
                load_1=round(cpu / 25, 2),
                load_5=round(cpu / 28, 2),
                load_15=round(cpu / 32, 2),
            )
            for hour, (at, cpu) in enumerate(zip(HOURS, CPU, strict=True))
        ]
    )
    session.flush()

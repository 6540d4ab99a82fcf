"""The monitoring domain and its capabilities, in registration order.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and must succeed (none needs a backend this machine lacks: probes report an
unreachable target as a critical result). Examples probe only 127.0.0.1 and local state.
Seeded ids: checks 1-7 (6 is disabled, the only one naming a fictional host); results 1-144
(1 September 2026, hourly); alerts 1-3 (1 open critical on check 7, 2 closed on check 2, 3 open
warn on check 3); silence 1 (expired); samples 1-24. The examples create check 8 and silence 2.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select

from domains.monitoring import bulk, inputs, metrics, reports, rules, runner, serialize
from domains.monitoring.entities import ALERT, CHECK, RESULT, SILENCE
from domains.monitoring.seed import seed
from domains.monitoring.tables import Alert, Check, Result, Silence
from facade.kit import CallContext, Domain, InvalidRequest, records, utcnow

Out = dict[str, Any]
DEFAULT_WINDOW = timedelta(days=7)

domain = Domain(
    "monitoring",
    description="Checks of this machine and its services, alerts, silences and metric samples.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)


def window(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime]:
    end = (until or datetime.now(UTC)).astimezone(UTC)
    start = (since or end - DEFAULT_WINDOW).astimezone(UTC)
    if start >= end:
        raise InvalidRequest(f"since ({start.isoformat()}) is not before until ({end.isoformat()}); swap or widen them")
    return start, end


# Checks

records.add_create(
    domain,
    CHECK,
    inputs.CheckCreate,
    description="Create a check of a TCP port, URL, disk, process or file age.",
    check=rules.check_create,
    example={
        "name": "ssh",
        "kind": "tcp",
        "target": "127.0.0.1:22",
        "warn_threshold": 100,
        "critical_threshold": 1000,
        "interval_seconds": 120,
    },
)


@domain.capability("check_get", read_only=True, example={"check_id": 1})
def check_get(ctx: CallContext, args: inputs.CheckRef) -> Out:
    """Get a check's current status with its latest results."""
    check = CHECK.fetch(ctx.db, args.check_id)
    recent = ctx.db.scalars(
        select(Result).where(Result.check_id == check.id).order_by(Result.checked_at.desc(), Result.id.desc()).limit(5)
    )
    return {"check": serialize.check(check), "recent_results": [serialize.result(r) for r in recent]}


records.add_list(domain, CHECK, inputs.CheckFilter, description="List checks with their current status.")
records.add_update(
    domain, CHECK, inputs.CheckUpdate, check=rules.check_update, example={"check_id": 3, "warn_threshold": 85}
)


# Running checks is the domain's purpose; the action name merely lacks a CRUD verb.
@domain.capability("check_run", tier="core", example={"check_id": 1})
def check_run(ctx: CallContext, args: inputs.CheckRun) -> Out:
    """Run one check, or every enabled check, now against the real machine."""
    if args.check_id is not None:
        checks = [CHECK.fetch(ctx.db, args.check_id)]
    else:
        checks = list(ctx.db.scalars(select(Check).where(Check.enabled.is_(True)).order_by(Check.id)))
    results = runner.run(ctx.db, checks)
    states = [r["state"] for r in results]
    return {"results": results, "summary": {s: states.count(s) for s in ("ok", "warn", "critical")}}


def _results_where(args: inputs.ResultFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.since is not None:
        conditions.append(Result.checked_at >= args.since)
    if args.until is not None:
        conditions.append(Result.checked_at < args.until)
    return conditions


records.add_list(
    domain,
    RESULT,
    inputs.ResultFilter,
    example={"check_id": 3, "state": "warn"},
    where=_results_where,
    references={"check_id": CHECK},
    description="List the recorded results of checks, oldest first.",
)

# Alerts


def _alerts_where(args: inputs.AlertFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.open is not None:
        conditions.append(Alert.closed_at.is_(None) if args.open else Alert.closed_at.is_not(None))
    if args.acknowledged is not None:
        conditions.append(
            Alert.acknowledged_at.is_not(None) if args.acknowledged else Alert.acknowledged_at.is_(None)
        )
    return conditions


records.add_list(
    domain,
    ALERT,
    inputs.AlertFilter,
    example={"open": True},
    where=_alerts_where,
    references={"check_id": CHECK},
    description="List alerts, optionally only open or unacknowledged ones.",
)


# Acknowledging is the everyday answer to an alert; the name merely lacks a CRUD verb.
@domain.capability(
    "alert_acknowledge", tier="core", idempotent=True, example={"alert_id": 1, "note": "Looking into the export job."}
)
def alert_acknowledge(ctx: CallContext, args: inputs.AlertAcknowledge) -> Out:
    """Acknowledge an open alert, optionally with a note."""
    alert = ALERT.fetch(ctx.db, args.alert_id)
    changed = rules.acknowledge(alert, ctx.agent[:120], args.note)
    ctx.db.flush()
    return {"alert": serialize.alert(alert), "changed": changed}


# Silences


@domain.capability(
    "silence_create", example={"check_id": 7, "minutes": 120, "reason": "Report export is being rewritten."}
)
def silence_create(ctx: CallContext, args: inputs.SilenceCreate) -> Out:
    """Mute a check's alerts until a time while it keeps running."""
    if (args.minutes is None) == (args.until is None):
        raise InvalidRequest("give exactly one of minutes and until")
    check = CHECK.fetch(ctx.db, args.check_id)
    starts = utcnow()
    if args.until is not None:
        ends = args.until.astimezone(UTC)
    else:
        ends = starts + timedelta(minutes=args.minutes or 0)
    rules.check_silence(check, starts, ends)
    silence = Silence(check_id=check.id, starts_at=starts, ends_at=ends, reason=args.reason, created_by=ctx.agent[:120])
    ctx.db.add(silence)
    ctx.db.flush()
    return {"silence": serialize.silence(silence)}


records.add_delete(
    domain,
    SILENCE,
    example_id=2,
    check=lambda db, silence: {"was_active": serialize.silence(silence)["active"]},
    description="Delete a silence, ending it now if it is active.",
)

# Samples


@domain.capability("sample_create", example={})
def sample_create(ctx: CallContext, args: inputs.SampleCreate) -> Out:
    """Take and store a sample of this machine's CPU, memory, disk and load."""
    return {"sample": serialize.sample(metrics.take(ctx.db, args.disk_path))}


records.add_delete(
    domain,
    CHECK,
    example_id=8,
    check=lambda db, check: {
        "deleted_results": db.scalar(select(func.count()).where(Result.check_id == check.id)),
        "deleted_alerts": db.scalar(select(func.count()).where(Alert.check_id == check.id)),
    },
    description="Delete a check with its results, alerts and silences.",
)

# Full tier: export, reports, statistics, bulk changes, purging.


@domain.capability("result_export", read_only=True, example={"check_id": 2, "format": "csv"})
def result_export(ctx: CallContext, args: inputs.ResultExport) -> Out:
    """Export recorded results as JSON or CSV."""
    if args.check_id is not None:
        CHECK.fetch(ctx.db, args.check_id)
    return reports.export(ctx.db, args.check_id, args.since, args.until, args.format, args.limit)


@domain.capability(
    "uptime_report",
    read_only=True,
    example={"since": "2026-09-01T00:00:00Z", "until": "2026-09-02T00:00:00Z", "sla_percent": 99.5},
)
def uptime_report(ctx: CallContext, args: inputs.UptimeReport) -> Out:
    """Report each check's uptime over a period against an SLA percentage."""
    if args.check_id is not None:
        CHECK.fetch(ctx.db, args.check_id)
    since, until = window(args.since, args.until)
    return reports.uptime(ctx.db, since, until, args.check_id, args.sla_percent)


@domain.capability(
    "alert_report", read_only=True, example={"since": "2026-08-25T00:00:00Z", "until": "2026-09-02T00:00:00Z"}
)
def alert_report(ctx: CallContext, args: inputs.AlertReport) -> Out:
    """Report alerts per check over a period, with mean times to acknowledge and close."""
    since, until = window(args.since, args.until)
    return reports.alerts(ctx.db, since, until)


@domain.capability(
    "sample_stats",
    read_only=True,
    example={"metric": "cpu_percent", "since": "2026-09-01T00:00:00Z", "until": "2026-09-02T00:00:00Z"},
)
def sample_stats(ctx: CallContext, args: inputs.SampleStats) -> Out:
    """Summarise one metric's samples: count, min, max, mean, median and p95."""
    since, until = window(args.since, args.until)
    return metrics.stats(ctx.db, args.metric, since, until)


@domain.capability("check_bulk_set_enabled", idempotent=True, example={"check_ids": [4, 5], "enabled": False})
def check_bulk_set_enabled(ctx: CallContext, args: inputs.CheckBulkSetEnabled) -> Out:
    """Enable or disable several checks, reporting each one's result."""
    return bulk.set_enabled(ctx.db, args.check_ids, args.enabled)


@domain.capability(
    "alert_bulk_acknowledge", idempotent=True, example={"alert_ids": [1, 3], "note": "Seen in the morning review."}
)
def alert_bulk_acknowledge(ctx: CallContext, args: inputs.AlertBulkAcknowledge) -> Out:
    """Acknowledge several open alerts, reporting each one's result."""
    return bulk.acknowledge(ctx.db, args.alert_ids, ctx.agent[:120], args.note)


@domain.capability("result_purge", destructive=True, idempotent=True, example={"before": "2026-09-01T06:00:00Z"})
def result_purge(ctx: CallContext, args: inputs.ResultPurge) -> Out:
    """Delete results recorded before a time; checks keep their current status."""
    conditions = [Result.checked_at < args.before]
    if args.check_id is not None:
        CHECK.fetch(ctx.db, args.check_id)
        conditions.append(Result.check_id == args.check_id)
    gone = ctx.db.execute(delete(Result).where(*conditions)).rowcount
    return {"deleted_results": gone, "before": args.before.astimezone(UTC).isoformat(), "check_id": args.check_id}


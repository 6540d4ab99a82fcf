"""Reports over the recorded history: uptime against an SLA, alert response times, and the
results exported as JSON or CSV."""

from __future__ import annotations

import csv
import io
import statistics
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from domains.monitoring import inputs, metrics, serialize
from domains.monitoring.entities import CHECK
from domains.monitoring.tables import Alert, Check, Result
from facade.kit import CallContext, InvalidRequest, Toolset

tools = Toolset()
DEFAULT_PERIOD = timedelta(days=7)

EXPORT_COLUMNS = [
    "result_id", "check_id", "checked_at", "state", "value", "unit",
    "warn_threshold", "critical_threshold", "duration_ms", "silenced", "message",
]


def window(since: datetime, until: datetime) -> dict[str, str]:
    return {"since": since.isoformat(), "until": until.isoformat()}


def uptime(db: Session, since: datetime, until: datetime, check_id: int | None, sla_percent: float) -> dict[str, Any]:
    """Per check, the share of results in the window that were not critical. Counted by
    results, so it assumes checks ran at their interval; `critical_seconds_estimate` spreads
    each critical result over one interval and is labelled as the estimate it is."""
    counts = (
        select(
            Check.id,
            Check.name,
            Check.interval_seconds,
            func.count(Result.id),
            func.sum(case((Result.state == "ok", 1), else_=0)),
            func.sum(case((Result.state == "warn", 1), else_=0)),
            func.sum(case((Result.state == "critical", 1), else_=0)),
        )
        .join(Result, Result.check_id == Check.id)
        .where(Result.checked_at >= since, Result.checked_at < until)
        .group_by(Check.id, Check.name, Check.interval_seconds)
        .order_by(Check.id)
    )
    if check_id is not None:
        counts = counts.where(Check.id == check_id)
    checks = []
    for cid, name, interval, total, ok, warn, critical in db.execute(counts):
        up = 100.0 * (total - critical) / total
        checks.append(
            {
                "check_id": cid,
                "name": name,
                "results": total,
                "ok": int(ok),
                "warn": int(warn),
                "critical": int(critical),
                "uptime_percent": round(up, 3),
                "meets_sla": up >= sla_percent,
                "critical_seconds_estimate": int(critical) * interval,
            }
        )
    return {
        **window(since, until),
        "sla_percent": sla_percent,
        "basis": "results",
        "checks": checks,
        "meeting_sla": sum(1 for c in checks if c["meets_sla"]),
        "missing_sla": [c["check_id"] for c in checks if not c["meets_sla"]],
    }


def alerts(db: Session, since: datetime, until: datetime) -> dict[str, Any]:
    """Alerts opened in the window, per check: how many, how bad, and how fast people and the
    checks responded (mean seconds to acknowledge and to close)."""
    rows = db.scalars(
        select(Alert).where(Alert.opened_at >= since, Alert.opened_at < until).order_by(Alert.check_id, Alert.id)
    ).all()
    names: dict[int, str] = {cid: name for cid, name in db.execute(select(Check.id, Check.name))}
    per_check: dict[int, list[Alert]] = {}
    for alert in rows:
        per_check.setdefault(alert.check_id, []).append(alert)

    def mean_seconds(pairs: list[tuple[datetime, datetime | None]]) -> float | None:
        spans = [(end - start).total_seconds() for start, end in pairs if end is not None]
        return round(statistics.fmean(spans), 1) if spans else None

    report = [
        {
            "check_id": cid,
            "name": names.get(cid),
            "opened": len(items),
            "critical": sum(1 for a in items if a.severity == "critical"),
            "warn": sum(1 for a in items if a.severity == "warn"),
            "still_open": [a.id for a in items if a.closed_at is None],
            "unacknowledged": [a.id for a in items if a.closed_at is None and a.acknowledged_at is None],
            "mean_seconds_to_acknowledge": mean_seconds([(a.opened_at, a.acknowledged_at) for a in items]),
            "mean_seconds_to_close": mean_seconds([(a.opened_at, a.closed_at) for a in items]),
        }
        for cid, items in per_check.items()
    ]
    return {**window(since, until), "alerts": len(rows), "checks": report}


def export(
    db: Session,
    check_id: int | None,
    since: datetime | None,
    until: datetime | None,
    fmt: Literal["json", "csv"],
    limit: int,
) -> dict[str, Any]:
    query = select(Result).order_by(Result.checked_at, Result.id)
    if check_id is not None:
        query = query.where(Result.check_id == check_id)
    if since is not None:
        query = query.where(Result.checked_at >= since)
    if until is not None:
        query = query.where(Result.checked_at < until)
    rows = [serialize.result(r) for r in db.scalars(query.limit(limit + 1))]
    truncated = len(rows) > limit
    rows = rows[:limit]
    head = {"format": fmt, "count": len(rows), "truncated": truncated}
    if truncated:
        head["note"] = f"more than {limit} results; narrow since/until or raise limit"
    if fmt == "json":
        return {**head, "results": rows}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return {**head, "data": buffer.getvalue()}


def period(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime]:
    """The period a report covers: until now and the week before, unless told otherwise."""
    end = (until or datetime.now(UTC)).astimezone(UTC)
    start = (since or end - DEFAULT_PERIOD).astimezone(UTC)
    if start >= end:
        raise InvalidRequest(f"since ({start.isoformat()}) is not before until ({end.isoformat()}); swap or widen them")
    return start, end


@tools.capability("result_export", read_only=True, example={"check_id": 2, "format": "csv"})
def result_export(ctx: CallContext, args: inputs.ResultExport) -> dict[str, Any]:
    """Export recorded results as JSON or CSV."""
    if args.check_id is not None:
        CHECK.fetch(ctx.db, args.check_id)
    return export(ctx.db, args.check_id, args.since, args.until, args.format, args.limit)


@tools.capability(
    "uptime_report",
    read_only=True,
    example={"since": "2026-09-01T00:00:00Z", "until": "2026-09-02T00:00:00Z", "sla_percent": 99.5},
)
def uptime_report(ctx: CallContext, args: inputs.UptimeReport) -> dict[str, Any]:
    """Report each check's uptime over a period against an SLA percentage."""
    if args.check_id is not None:
        CHECK.fetch(ctx.db, args.check_id)
    since, until = period(args.since, args.until)
    return uptime(ctx.db, since, until, args.check_id, args.sla_percent)


@tools.capability(
    "alert_report", read_only=True, example={"since": "2026-08-25T00:00:00Z", "until": "2026-09-02T00:00:00Z"}
)
def alert_report(ctx: CallContext, args: inputs.AlertReport) -> dict[str, Any]:
    """Report alerts per check over a period, with mean times to acknowledge and close."""
    since, until = period(args.since, args.until)
    return alerts(ctx.db, since, until)


@tools.capability(
    "sample_stats",
    read_only=True,
    example={"metric": "cpu_percent", "since": "2026-09-01T00:00:00Z", "until": "2026-09-02T00:00:00Z"},
)
def sample_stats(ctx: CallContext, args: inputs.SampleStats) -> dict[str, Any]:
    """Summarise one metric's samples: count, min, max, mean, median and p95."""
    since, until = period(args.since, args.until)
    return metrics.stats(ctx.db, args.metric, since, until)

"""Checks: what is watched and how (a TCP port, a URL, a disk, a process, a file's age), running
them against the real machine, and the results they record."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select

from domains.monitoring import inputs, rules, runner, serialize
from domains.monitoring.entities import CHECK, RESULT
from domains.monitoring.tables import Alert, Check, Result
from facade.kit import CallContext, Toolset, records

tools = Toolset()
deletes = Toolset()  # listed after the samples


records.add_create(
    tools,
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


@tools.capability("check_get", read_only=True, example={"check_id": 1})
def check_get(ctx: CallContext, args: inputs.CheckRef) -> dict[str, Any]:
    """Get a check's current status with its latest results."""
    check = CHECK.fetch(ctx.db, args.check_id)
    recent = ctx.db.scalars(
        select(Result).where(Result.check_id == check.id).order_by(Result.checked_at.desc(), Result.id.desc()).limit(5)
    )
    return {"check": serialize.check(check), "recent_results": [serialize.result(r) for r in recent]}


records.add_list(tools, CHECK, inputs.CheckFilter, description="List checks with their current status.")
records.add_update(
    tools, CHECK, inputs.CheckUpdate, check=rules.check_update, example={"check_id": 3, "warn_threshold": 85}
)


# Running checks is the domain's purpose; the action name merely lacks a CRUD verb.
@tools.capability("check_run", tier="core", example={"check_id": 1})
def check_run(ctx: CallContext, args: inputs.CheckRun) -> dict[str, Any]:
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
    tools,
    RESULT,
    inputs.ResultFilter,
    example={"check_id": 3, "state": "warn"},
    where=_results_where,
    references={"check_id": CHECK},
    description="List the recorded results of checks, oldest first.",
)


records.add_delete(
    deletes,
    CHECK,
    example_id=6,
    check=lambda db, check: {
        "deleted_results": db.scalar(select(func.count()).where(Result.check_id == check.id)),
        "deleted_alerts": db.scalar(select(func.count()).where(Alert.check_id == check.id)),
    },
    description="Delete a check with its results, alerts and silences.",
)

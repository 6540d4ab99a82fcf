"""Changes to many checks or alerts at once. Each item succeeds or fails on its own and the
result reports every item, so that one bad id does not sink the others."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session

from domains.monitoring import inputs, rules
from domains.monitoring.entities import ALERT, CHECK
from domains.monitoring.tables import Result
from facade.kit import CallContext, Toolset, each

tools = Toolset()


def set_enabled(db: Session, check_ids: list[int], enabled: bool) -> dict[str, Any]:
    def apply(check_id: int) -> dict[str, Any]:
        check = CHECK.fetch(db, check_id)
        if check.enabled == enabled:
            return {"changed": False}
        if enabled:
            check.enabled = True
            return {"changed": True}
        return {"changed": True, "closed_alert_ids": rules.disable(check)}

    outcome = each(check_ids, "check_id", apply)
    db.flush()
    return outcome


def acknowledge(db: Session, alert_ids: list[int], who: str, note: str | None) -> dict[str, Any]:
    def apply(alert_id: int) -> dict[str, Any]:
        return {"changed": rules.acknowledge(ALERT.fetch(db, alert_id), who, note)}

    outcome = each(alert_ids, "alert_id", apply)
    db.flush()
    return outcome


@tools.capability("check_bulk_set_enabled", idempotent=True, example={"check_ids": [4, 5], "enabled": False})
def check_bulk_set_enabled(ctx: CallContext, args: inputs.CheckBulkSetEnabled) -> dict[str, Any]:
    """Enable or disable several checks, reporting each one's result."""
    return set_enabled(ctx.db, args.check_ids, args.enabled)


@tools.capability(
    "alert_bulk_acknowledge", idempotent=True, example={"alert_ids": [1, 3], "note": "Seen in the morning review."}
)
def alert_bulk_acknowledge(ctx: CallContext, args: inputs.AlertBulkAcknowledge) -> dict[str, Any]:
    """Acknowledge several open alerts, reporting each one's result."""
    return acknowledge(ctx.db, args.alert_ids, ctx.agent[:120], args.note)


# History purged for good: the host asks its user first (approval 1).
@tools.capability("result_purge", approval=1, destructive=True, idempotent=True, example={"before": "2026-09-01T06:00:00Z"})
def result_purge(ctx: CallContext, args: inputs.ResultPurge) -> dict[str, Any]:
    """Delete results recorded before a time; checks keep their current status."""
    conditions = [Result.checked_at < args.before]
    if args.check_id is not None:
        CHECK.fetch(ctx.db, args.check_id)
        conditions.append(Result.check_id == args.check_id)
    gone = ctx.db.execute(delete(Result).where(*conditions)).rowcount
    return {"deleted_results": gone, "before": args.before.astimezone(UTC).isoformat(), "check_id": args.check_id}

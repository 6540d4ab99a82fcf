"""Alerts and silences: what a failing check opens, acknowledging it, and muting a check's
alerts for a while."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

from sqlalchemy import ColumnElement

from domains.monitoring import inputs, rules, serialize
from domains.monitoring.entities import ALERT, CHECK, SILENCE
from domains.monitoring.tables import Alert, Silence
from facade.kit import CallContext, InvalidRequest, Toolset, records, utcnow

tools = Toolset()


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
    tools,
    ALERT,
    inputs.AlertFilter,
    example={"open": True},
    where=_alerts_where,
    references={"check_id": CHECK},
    description="List alerts, optionally only open or unacknowledged ones.",
)


# Acknowledging is the everyday answer to an alert; the name merely lacks a CRUD verb.
@tools.capability(
    "alert_acknowledge", tier="core", idempotent=True, example={"alert_id": 1, "note": "Looking into the export job."}
)
def alert_acknowledge(ctx: CallContext, args: inputs.AlertAcknowledge) -> dict[str, Any]:
    """Acknowledge an open alert, optionally with a note."""
    alert = ALERT.fetch(ctx.db, args.alert_id)
    changed = rules.acknowledge(alert, ctx.agent[:120], args.note)
    ctx.db.flush()
    return {"alert": serialize.alert(alert), "changed": changed}


@tools.capability(
    "silence_create", example={"check_id": 7, "minutes": 120, "reason": "Report export is being rewritten."}
)
def silence_create(ctx: CallContext, args: inputs.SilenceCreate) -> dict[str, Any]:
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
    tools,
    SILENCE,
    example_id=1,
    check=lambda db, silence: {"was_active": serialize.silence(silence)["active"]},
    description="Delete a silence, ending it now if it is active.",
)

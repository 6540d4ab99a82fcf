"""The monitoring domain's rules: check names are unique and their targets and thresholds fit
their kind; a check that leaves ok opens an alert (unless silenced), one that gets worse
escalates it, one that recovers closes it; a disabled check closes its alerts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, object_session

from domains.monitoring import kinds
from domains.monitoring.tables import Alert, Check, Result, Silence
from facade.kit import Conflict, InvalidRequest, utcnow

SEVERITY_RANK = {"ok": 0, "warn": 1, "critical": 2}


def name_free(db: Session, name: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(Check.id).where(func.lower(Check.name) == name.lower(), Check.id != except_id))
    if clash is not None:
        raise Conflict(f"check {clash} is already named {name!r}; choose another name or update check {clash}")


def check_create(db: Session, values: dict[str, Any]) -> None:
    """Validate a new check and fill in the kind's default thresholds when none are given."""
    name_free(db, values["name"])
    kind = values["kind"]
    values["target"] = kinds.normal_target(kind, values["target"])
    spec = kinds.KINDS[kind]
    if values.get("warn_threshold") is None and values.get("critical_threshold") is None:
        values["warn_threshold"], values["critical_threshold"] = spec.warn, spec.critical
    kinds.check_thresholds(kind, values.get("warn_threshold"), values.get("critical_threshold"))


def check_update(db: Session, check: Check, changes: dict[str, Any]) -> None:
    if "name" in changes:
        name_free(db, changes["name"], check.id)
    if "target" in changes:
        changes["target"] = kinds.normal_target(check.kind, changes["target"])
    warn = changes.get("warn_threshold", check.warn_threshold)
    critical = changes.get("critical_threshold", check.critical_threshold)
    kinds.check_thresholds(check.kind, warn, critical)
    if changes.get("enabled") is False and check.enabled:
        changes.pop("enabled")
        disable(check)


def disable(check: Check) -> list[int]:
    """Disable a check; its open alerts close, since nothing will ever recover them."""
    check.enabled = False
    now = utcnow()
    closed = []
    for alert in check.open_alerts:
        alert.closed_at = now
        alert.note = (alert.note + "\n" if alert.note else "") + "closed: the check was disabled"
        closed.append(alert.id)
    db = object_session(check)
    if closed and db is not None:
        db.flush()
        db.expire(check, ["open_alerts"])  # a view of the alerts table: reload what is open now
    return closed


def active_silence(check: Check, now: datetime) -> Silence | None:
    """The silence covering `now` that ends last, if any."""
    live = [s for s in check.silences if s.starts_at <= now < s.ends_at]
    return max(live, key=lambda s: s.ends_at) if live else None


def alert_transition(db: Session, check: Check, result: Result) -> dict[str, Any] | None:
    """Open, escalate, de-escalate or close the check's alert after a result; what happened."""
    current = check.open_alerts[0] if check.open_alerts else None
    if result.state == "ok":
        if current is None:
            return None
        current.closed_at = result.checked_at
        db.flush()
        db.expire(check, ["open_alerts"])
        return {"alert_id": current.id, "event": "closed"}
    if current is not None:
        if current.severity == result.state:
            return None
        worse = SEVERITY_RANK[result.state] > SEVERITY_RANK[current.severity]
        current.severity = result.state
        current.message = result.message
        if worse:  # a worse state needs someone to look again
            current.acknowledged_at = current.acknowledged_by = None
        return {"alert_id": current.id, "event": "escalated" if worse else "deescalated", "severity": result.state}
    if result.silenced:
        return {"alert_id": None, "event": "suppressed by a silence", "severity": result.state}
    alert = Alert(check_id=check.id, severity=result.state, message=result.message, opened_at=result.checked_at)
    db.add(alert)
    db.flush()
    db.expire(check, ["open_alerts"])
    return {"alert_id": alert.id, "event": "opened", "severity": result.state}


def acknowledge(alert: Alert, who: str, note: str | None) -> bool:
    """Acknowledge an open alert; False when it already was."""
    if alert.closed_at is not None:
        raise Conflict(
            f"alert {alert.id} closed at {alert.closed_at.isoformat()}; only open alerts are acknowledged "
            "(list them with monitoring.alert_list open=true)"
        )
    if note:
        alert.note = (alert.note + "\n" if alert.note else "") + note
    if alert.acknowledged_at is not None:
        return False
    alert.acknowledged_at, alert.acknowledged_by = utcnow(), who
    return True


def check_silence(check: Check, starts: datetime, ends: datetime) -> None:
    if ends <= starts:
        raise InvalidRequest(f"the silence would end at {ends.isoformat()}, before it starts; give a later end")
    current = active_silence(check, starts)
    if current is not None:
        raise Conflict(
            f"check {check.id} is already silenced until {current.ends_at.isoformat()} (silence {current.id}); "
            f"to change the end, delete silence {current.id} with monitoring.silence_delete and create a new one"
        )

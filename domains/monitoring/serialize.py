"""Records as JSON-friendly dicts: ids, plain strings and numbers, ISO timestamps."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from domains.monitoring import kinds
from domains.monitoring.tables import Alert, Check, Result, Sample, Silence
from facade.kit import iso, utcnow


def check(c: Check) -> dict[str, Any]:
    """A check with its current status: state, last value against the thresholds, its open
    alert and silence. Lists load `silences` and `open_alerts` up front (see entities)."""
    now = utcnow()
    spec = kinds.KINDS[c.kind]
    live = [s for s in c.silences if s.starts_at <= now < s.ends_at]
    silence = max(live, key=lambda s: s.ends_at) if live else None
    alert = c.open_alerts[0] if c.open_alerts else None
    due = c.enabled and (
        c.last_checked_at is None or c.last_checked_at + timedelta(seconds=c.interval_seconds) <= now
    )
    return {
        "id": c.id,
        "name": c.name,
        "kind": c.kind,
        "target": c.target,
        "state": c.state,
        "state_since": iso(c.state_since),
        "last_value": c.last_value,
        "unit": spec.unit,
        "bad_when": spec.direction,
        "warn_threshold": c.warn_threshold,
        "critical_threshold": c.critical_threshold,
        "last_checked_at": iso(c.last_checked_at),
        "interval_seconds": c.interval_seconds,
        "due": due,
        "enabled": c.enabled,
        "silence": {"silence_id": silence.id, "until": iso(silence.ends_at)} if silence else None,
        "open_alert": (
            {"alert_id": alert.id, "severity": alert.severity, "acknowledged": alert.acknowledged_at is not None}
            if alert
            else None
        ),
        "created_at": iso(c.created_at),
        "updated_at": iso(c.updated_at),
    }


def result(r: Result) -> dict[str, Any]:
    return {
        "result_id": r.id,
        "check_id": r.check_id,
        "checked_at": iso(r.checked_at),
        "state": r.state,
        "value": r.value,
        "unit": r.unit,
        "warn_threshold": r.warn_threshold,
        "critical_threshold": r.critical_threshold,
        "duration_ms": r.duration_ms,
        "message": r.message,
        "silenced": r.silenced,
    }


def alert(a: Alert) -> dict[str, Any]:
    return {
        "id": a.id,
        "check_id": a.check_id,
        "severity": a.severity,
        "open": a.closed_at is None,
        "message": a.message,
        "opened_at": iso(a.opened_at),
        "closed_at": iso(a.closed_at),
        "acknowledged_at": iso(a.acknowledged_at),
        "acknowledged_by": a.acknowledged_by,
        "note": a.note,
    }


def silence(s: Silence) -> dict[str, Any]:
    return {
        "id": s.id,
        "check_id": s.check_id,
        "starts_at": iso(s.starts_at),
        "ends_at": iso(s.ends_at),
        "active": s.starts_at <= utcnow() < s.ends_at,
        "reason": s.reason,
        "created_by": s.created_by,
    }


def sample(s: Sample) -> dict[str, Any]:
    return {
        "id": s.id,
        "taken_at": iso(s.taken_at),
        "cpu_percent": s.cpu_percent,
        "memory_percent": s.memory_percent,
        "memory_used_bytes": s.memory_used_bytes,
        "disk_path": s.disk_path,
        "disk_percent": s.disk_percent,
        "load_1": s.load_1,
        "load_5": s.load_5,
        "load_15": s.load_15,
    }

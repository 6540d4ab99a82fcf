"""Running checks now: probe the targets (in parallel, since a probe mostly waits), then record
each result, move the check's state and open or close its alert, one check at a time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.orm import Session

from domains.monitoring import kinds, rules, serialize
from domains.monitoring.probes import Measurement, probe
from domains.monitoring.settings import settings
from domains.monitoring.tables import Check, Result
from facade.kit import utcnow

MAX_PARALLEL = 8


def thresholds_text(kind: str, warn: float | None, critical: float | None) -> str:
    spec = kinds.KINDS[kind]
    sign = ">=" if spec.direction == "above" else "<"
    parts = [f"{label} at {sign} {value:g} {spec.unit}" for label, value in (("warn", warn), ("critical", critical))
             if value is not None]
    return ", ".join(parts) or "no thresholds"


def run(db: Session, checks: list[Check]) -> list[dict[str, Any]]:
    timeout = settings().probe_timeout_seconds
    # Plain values go to the threads: ORM objects stay on the session's thread.
    targets = [(c.kind, c.target) for c in checks]
    with ThreadPoolExecutor(max_workers=max(1, min(MAX_PARALLEL, len(targets)))) as pool:
        measured = list(pool.map(lambda t: probe(t[0], t[1], timeout), targets))
    return [record(db, check, m) for check, m in zip(checks, measured, strict=True)]


def record(db: Session, check: Check, m: Measurement) -> dict[str, Any]:
    now = utcnow()
    spec = kinds.KINDS[check.kind]
    if m.failed or m.value is None:
        state = "critical"
    else:
        state = kinds.verdict(check.kind, m.value, check.warn_threshold, check.critical_threshold)
    silence = rules.active_silence(check, now)
    result = Result(
        check_id=check.id,
        checked_at=now,
        state=state,
        value=m.value,
        unit=spec.unit,
        warn_threshold=check.warn_threshold,
        critical_threshold=check.critical_threshold,
        duration_ms=m.duration_ms,
        message=f"{m.detail} ({thresholds_text(check.kind, check.warn_threshold, check.critical_threshold)})",
        silenced=silence is not None,
    )
    db.add(result)
    db.flush()
    event = rules.alert_transition(db, check, result)
    if check.state != state:
        check.state, check.state_since = state, now
    check.last_value, check.last_checked_at = m.value, now
    db.flush()
    return {
        "check_id": check.id,
        "name": check.name,
        **serialize.result(result),
        "silenced_until": silence.ends_at.isoformat() if silence else None,
        "alert": event,
    }

"""Changes to many checks or alerts at once. Each item succeeds or fails on its own and the
result reports every item, so that one bad id does not sink the others."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from domains.monitoring import rules
from domains.monitoring.entities import ALERT, CHECK
from facade.kit import each


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

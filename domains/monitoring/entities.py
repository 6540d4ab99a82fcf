"""The domain's entities as data, for lookups and the data-driven get/list/update/delete."""

from __future__ import annotations

from sqlalchemy.orm import selectinload

from domains.monitoring import serialize
from domains.monitoring.tables import Alert, Check, Result, Silence
from facade.kit import Entity

# A check renders its live silence and open alert: loaded with the page, not once per row.
CHECK: Entity[Check] = Entity(
    "monitoring",
    "check",
    "checks",
    Check,
    render=serialize.check,
    load=(selectinload(Check.silences), selectinload(Check.open_alerts)),
)
RESULT: Entity[Result] = Entity("monitoring", "result", "results", Result, render=serialize.result)
ALERT: Entity[Alert] = Entity("monitoring", "alert", "alerts", Alert, render=serialize.alert)
SILENCE: Entity[Silence] = Entity("monitoring", "silence", "silences", Silence, render=serialize.silence)

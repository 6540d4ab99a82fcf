"""Working with recurrence itself: previewing what an RRULE produces before saving it, and
bringing back an occurrence that was cancelled or changed."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from domains.calendar import changes, inputs, recurrence, serialize, times
from domains.calendar.entities import EVENT
from facade.kit import CallContext, NotFound, Toolset

tools = Toolset()

Result = dict[str, Any]


@tools.capability(
    "recurrence_preview",
    read_only=True,
    example={"rrule": "FREQ=MONTHLY;BYDAY=-1FR;COUNT=6", "start": "2026-12-25T16:00:00", "timezone": "Europe/Berlin"},
)
def recurrence_preview(ctx: CallContext, args: inputs.RecurrencePreview) -> Result:
    """Check an RRULE and list its first occurrences from a start, without saving anything."""
    tz = times.zone(args.timezone)
    start = times.instant(args.start, tz)
    rule_text = recurrence.checked(args.rrule, start, tz)
    rule = recurrence.rule_for(rule_text, start, tz)
    shown = []
    for local_start in rule.xafter(start.astimezone(tz), count=args.count, inc=True):
        shown.append({"start": local_start.astimezone(UTC).isoformat(), "local_start": local_start.isoformat()})
    finite = rule._count is not None or rule._until is not None  # noqa: SLF001 — dateutil exposes them no other way
    return {"rrule": rule_text, "timezone": args.timezone, "occurrences": shown, "finite": finite}


@tools.capability(
    "occurrence_restore", idempotent=True, example={"event_id": 1, "occurrence_start": "2026-12-09T08:30:00Z"}
)
def occurrence_restore(ctx: CallContext, args: inputs.OccurrenceRef) -> Result:
    """Bring back one occurrence of a series as the series defines it, undoing a cancel or change."""
    series = EVENT.fetch(ctx.db, args.event_id)
    original = changes.original_start(series, args.occurrence_start)
    cancelled = [x for x in series.exdates if x.original_start == original]
    changed = [o for o in series.overrides if o.recurrence_id == original]
    if not cancelled and not changed:
        raise NotFound(
            f"the occurrence of event {series.id} at {original.isoformat()} is neither cancelled nor changed; "
            "there is nothing to restore"
        )
    series.exdates[:] = [x for x in series.exdates if x not in cancelled]
    series.overrides[:] = [o for o in series.overrides if o not in changed]
    ctx.db.flush()
    return {
        "restored": {"event_id": series.id, "occurrence_start": serialize.iso(original)},
        "was_cancelled": bool(cancelled),
        "removed_event_ids": [o.id for o in changed],
    }

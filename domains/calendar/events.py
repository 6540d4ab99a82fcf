"""Events and series: create, read, list, change and delete — the whole event, or one
occurrence of a series when `occurrence_start` names it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, or_

from domains.calendar import changes, inputs, serialize, times
from domains.calendar.entities import CALENDAR, EVENT
from domains.calendar.tables import Event
from facade.kit import CallContext, InvalidRequest, Toolset, contains_text, records

tools = Toolset()

Result = dict[str, Any]


@tools.capability(
    "event_create",
    example={
        "calendar_id": 1,
        "title": "Sprint planning",
        "start": "2026-12-14T10:00:00+01:00",
        "end": "2026-12-14T11:00:00+01:00",
        "rrule": "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;COUNT=6",
        "location": "Room Hopper",
    },
)
def event_create(ctx: CallContext, args: inputs.EventCreate) -> Result:
    """Create an event, all-day or timed, optionally repeating by an RRULE."""
    calendar = CALENDAR.fetch(ctx.db, args.calendar_id)
    return {"event": serialize.event(changes.new_event(ctx.db, calendar, args))}


records.add_get(tools, EVENT, example_id=1)


def _events_where(args: inputs.EventFilter) -> list[ColumnElement[bool]]:
    # Changed occurrences are listed inside their series, not as events of their own.
    conditions: list[ColumnElement[bool]] = [Event.series_id.is_(None)]
    if args.query:
        columns = (Event.title, Event.location, Event.description)
        conditions.append(or_(*(contains_text(c, args.query) for c in columns)))
    if args.starts_after is not None:
        conditions.append(Event.start_at >= times.instant(args.starts_after, times.zone("UTC")))
    if args.starts_before is not None:
        conditions.append(Event.start_at < times.instant(args.starts_before, times.zone("UTC")))
    if args.recurring is not None:
        conditions.append(Event.rrule.is_not(None) if args.recurring else Event.rrule.is_(None))
    return conditions


records.add_list(
    tools,
    EVENT,
    inputs.EventFilter,
    example={"calendar_id": 1},
    where=_events_where,
    references={"calendar_id": CALENDAR},
    description="List events and series, optionally filtered.",
)


@tools.capability(
    "event_update",
    idempotent=True,
    example={"event_id": 1, "occurrence_start": "2026-12-11T08:30:00Z", "start": "2026-12-11T10:00:00+01:00"},
)
def event_update(ctx: CallContext, args: inputs.EventUpdate) -> Result:
    """Change an event or whole series, or with occurrence_start just that one occurrence."""
    event = EVENT.fetch(ctx.db, args.event_id)
    given = (args.model_fields_set & set(inputs.EventUpdate.model_fields)) - {"event_id", "occurrence_start"}
    if not given:
        raise InvalidRequest(
            "nothing to change; give at least one of: title, start, end, all_day, timezone, location, description, "
            "rrule, show_as, calendar_id"
        )
    if args.calendar_id is not None:
        CALENDAR.fetch(ctx.db, args.calendar_id)
    if args.occurrence_start is not None:
        if given & changes.SERIES_ONLY:
            raise InvalidRequest(
                f"{', '.join(sorted(given & changes.SERIES_ONLY))} belong to the whole series; omit occurrence_start"
            )
        original = changes.original_start(event, args.occurrence_start)
        event = changes.override_for(ctx.db, event, original)
    report = changes.apply(ctx.db, event, args, given)
    return {"event": serialize.event(event), **report}


@tools.capability(
    "event_delete", destructive=True, example={"event_id": 1, "occurrence_start": "2026-12-14T08:30:00Z"}
)
def event_delete(ctx: CallContext, args: inputs.EventDelete) -> Result:
    """Delete an event or whole series, or with occurrence_start cancel just that occurrence."""
    event = EVENT.fetch(ctx.db, args.event_id)
    if args.occurrence_start is not None:
        return changes.cancel(ctx.db, event, changes.original_start(event, args.occurrence_start))
    if event.series is not None:
        # Deleting a changed occurrence cancels it; the series goes on around it.
        assert event.recurrence_id is not None
        return changes.cancel(ctx.db, event.series, event.recurrence_id)
    changed = [o.id for o in event.overrides]
    ctx.db.delete(event)
    ctx.db.flush()
    return {"deleted": {"event_id": args.event_id}, "removed_event_ids": changed}

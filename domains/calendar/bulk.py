"""Operations over many events at once, each item reported on its own."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update

from domains.calendar import changes, inputs, serialize
from domains.calendar.entities import CALENDAR, EVENT
from domains.calendar.tables import Event
from facade.kit import CallContext, InvalidRequest, Toolset, each

tools = Toolset()

Result = dict[str, Any]


@tools.capability(
    "event_bulk_create",
    example={
        "calendar_id": 2,
        "events": [
            {"title": "FOSDEM", "start": "2027-01-30", "end": "2027-01-31", "location": "ULB, Brussels"},
            {"title": "Talk rehearsal", "start": "2027-01-28T17:00:00+01:00", "timezone": "Europe/Brussels"},
        ],
    },
)
def event_bulk_create(ctx: CallContext, args: inputs.EventBulkCreate) -> Result:
    """Create several events in one calendar, reporting each one's result."""
    calendar = CALENDAR.fetch(ctx.db, args.calendar_id)  # one calendar for all: a missing one fails the call

    def create(index: int) -> Result:
        event = changes.new_event(ctx.db, calendar, args.events[index])
        return {"event_id": event.id, "start": serialize.iso(event.start_at)}

    return each(range(len(args.events)), "index", create)


@tools.capability("event_bulk_move", idempotent=True, example={"from_calendar_id": 3, "to_calendar_id": 1})
def event_bulk_move(ctx: CallContext, args: inputs.EventBulkMove) -> Result:
    """Move every event of one calendar into another."""
    source = CALENDAR.fetch(ctx.db, args.from_calendar_id)
    target = CALENDAR.fetch(ctx.db, args.to_calendar_id)
    if source.id == target.id:
        raise InvalidRequest(f"both calendars are {source.id}; give two different calendars")
    moved = list(
        ctx.db.scalars(
            select(Event.id).where(Event.calendar_id == source.id, Event.series_id.is_(None)).order_by(Event.id)
        )
    )
    # Changed occurrences move with their series: every row of the calendar goes.
    ctx.db.execute(update(Event).where(Event.calendar_id == source.id).values(calendar_id=target.id))
    ctx.db.expire_all()
    left = ctx.db.scalar(select(func.count()).where(Event.calendar_id == source.id))
    return {"moved_event_ids": moved, "from_calendar_id": source.id, "to_calendar_id": target.id, "left": left}


# Many events or whole series at once, for good: the host asks its user first (approval 1).
@tools.capability("event_bulk_delete", approval=1, destructive=True, example={"event_ids": [8, 10]})
def event_bulk_delete(ctx: CallContext, args: inputs.EventBulkDelete) -> Result:
    """Delete several events or whole series, reporting each one's result."""

    def delete(event_id: int) -> Result:
        event = EVENT.fetch(ctx.db, event_id)
        if event.series is not None:
            assert event.recurrence_id is not None
            return changes.cancel(ctx.db, event.series, event.recurrence_id)
        ctx.db.delete(event)
        ctx.db.flush()
        return {"deleted": True}

    return each(args.event_ids, "event_id", delete)

"""Calendars: plain records (data-driven through facade.kit.records) with two rules, unique names
and real IANA zones, and a delete that will not take events along unless told to."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.calendar import inputs, serialize, times
from domains.calendar.entities import CALENDAR
from domains.calendar.tables import Calendar, Event
from facade.kit import CallContext, Conflict, Toolset, records

tools = Toolset()


def name_free(db: Session, name: str, except_id: int | None = None) -> None:
    # Case-insensitive, so that "Work" and "work" cannot both exist to confuse a reader.
    clash = db.scalar(select(Calendar).where(func.lower(Calendar.name) == name.lower(), Calendar.id != except_id))
    if clash is not None:
        raise Conflict(f"calendar {clash.id} is already named {clash.name!r}; choose another name")


def check_create(db: Session, values: dict[str, Any]) -> None:
    name_free(db, values["name"])
    times.zone(values["timezone"])


def check_update(db: Session, calendar: Calendar, changes: dict[str, Any]) -> None:
    if changes.get("name"):
        name_free(db, changes["name"], calendar.id)
    if changes.get("timezone"):
        times.zone(changes["timezone"])


records.add_create(
    tools,
    CALENDAR,
    inputs.CalendarCreate,
    example={"name": "Conferences", "timezone": "Europe/Lisbon", "color": "#0ea5e9", "owner_email": "sam@example.com"},
    check=check_create,
)
records.add_list(tools, CALENDAR, example={}, description="List calendars.")
records.add_update(
    tools,
    CALENDAR,
    inputs.CalendarUpdate,
    example={"calendar_id": 3, "description": "Who is away when, and the public holidays."},
    check=check_update,
)


# A calendar goes with every event in it (force=true), for good: the host asks first (approval 1).
@tools.capability("calendar_delete", approval=1, destructive=True, example={"calendar_id": 4, "force": True})
def calendar_delete(ctx: CallContext, args: inputs.CalendarDelete) -> dict[str, Any]:
    """Delete a calendar; one that still has events needs force=true."""
    calendar = CALENDAR.fetch(ctx.db, args.calendar_id)
    count = ctx.db.scalar(select(func.count()).where(Event.calendar_id == calendar.id, Event.series_id.is_(None))) or 0
    if count and not args.force:
        raise Conflict(
            f"calendar {calendar.id} still has {count} events; pass force=true to delete them with it, or move "
            "them first with calendar.event_bulk_move"
        )
    ctx.db.delete(calendar)
    ctx.db.flush()
    return {"deleted": {"calendar_id": calendar.id}, "deleted_events": count, "calendar": serialize.calendar(calendar)}

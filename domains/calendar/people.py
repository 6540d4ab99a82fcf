"""Attendees with their RSVP, and reminders. Both belong to a single event or to a whole series;
a changed occurrence shows its series' attendees and reminders."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.calendar import inputs, serialize, times
from domains.calendar.entities import EVENT
from domains.calendar.occurrences import in_range
from domains.calendar.tables import Attendee, Event, Reminder
from facade.kit import CallContext, Conflict, InvalidRequest, NotFound, Toolset

tools = Toolset()

Result = dict[str, Any]


def _owner(db: Session, event_id: int) -> Event:
    """The event, if attendees and reminders may hang on it (not a changed occurrence)."""
    event = EVENT.fetch(db, event_id)
    if event.series_id is not None:
        raise InvalidRequest(
            f"event {event.id} is one changed occurrence of series {event.series_id}; attendees and reminders belong "
            f"to the series: use event_id={event.series_id}"
        )
    return event


def _attendee(db: Session, attendee_id: int) -> Attendee:
    found = db.get(Attendee, attendee_id)
    if found is None:
        raise NotFound(f"attendee {attendee_id} does not exist; an event's attendees are listed by calendar.event_get")
    return found


def _reminder(db: Session, reminder_id: int) -> Reminder:
    found = db.get(Reminder, reminder_id)
    if found is None:
        raise NotFound(f"reminder {reminder_id} does not exist; an event's reminders are listed by calendar.event_get")
    return found


@tools.capability(
    "attendee_add", example={"event_id": 2, "email": "marco@example.com", "name": "Marco Bianchi"}
)
def attendee_add(ctx: CallContext, args: inputs.AttendeeAdd) -> Result:
    """Invite someone to an event or a whole series."""
    event = _owner(ctx.db, args.event_id)
    clash = next((a for a in event.attendees if a.email == args.email), None)
    if clash is not None:
        raise Conflict(
            f"{args.email} already is attendee {clash.id} of event {event.id}; change their answer with "
            "calendar.attendee_update"
        )
    attendee = Attendee(email=args.email, name=args.name, rsvp=args.rsvp)
    event.attendees.append(attendee)
    ctx.db.flush()
    return {"attendee": serialize.attendee(attendee)}


@tools.capability("attendee_update", idempotent=True, example={"attendee_id": 6, "rsvp": "accepted"})
def attendee_update(ctx: CallContext, args: inputs.AttendeeUpdate) -> Result:
    """Record an attendee's RSVP or change their name."""
    attendee = _attendee(ctx.db, args.attendee_id)
    if args.rsvp is None and args.name is None:
        raise InvalidRequest("nothing to change; give rsvp, name or both")
    if args.rsvp is not None:
        attendee.rsvp = args.rsvp
    if args.name is not None:
        attendee.name = args.name
    ctx.db.flush()
    return {"attendee": serialize.attendee(attendee)}


@tools.capability("attendee_remove", destructive=True, idempotent=True, example={"attendee_id": 13})
def attendee_remove(ctx: CallContext, args: inputs.AttendeeRef) -> Result:
    """Take someone off an event's guest list."""
    attendee = _attendee(ctx.db, args.attendee_id)
    shown = serialize.attendee(attendee)
    ctx.db.delete(attendee)
    ctx.db.flush()
    return {"removed": shown}


@tools.capability("reminder_add", example={"event_id": 5, "minutes_before": 30})
def reminder_add(ctx: CallContext, args: inputs.ReminderAdd) -> Result:
    """Add a reminder some minutes before an event or every occurrence of a series."""
    event = _owner(ctx.db, args.event_id)
    if any(r.minutes_before == args.minutes_before and r.method == args.method for r in event.reminders):
        raise Conflict(f"event {event.id} already has a {args.method} reminder {args.minutes_before} minutes before")
    reminder = Reminder(minutes_before=args.minutes_before, method=args.method)
    event.reminders.append(reminder)
    ctx.db.flush()
    return {"reminder": serialize.reminder(reminder)}


@tools.capability(
    "reminder_list",
    read_only=True,
    example={"start": "2026-12-08T00:00:00+01:00", "end": "2026-12-11T00:00:00+01:00", "timezone": "Europe/Berlin"},
)
def reminder_list(ctx: CallContext, args: inputs.Range) -> Result:
    """List the reminders that fire in a time range, in firing order."""
    tz = times.zone(args.timezone)
    begins, ends = times.window(args.start, args.end, tz)
    longest = ctx.db.scalar(select(Reminder.minutes_before).order_by(Reminder.minutes_before.desc()).limit(1))
    if longest is None:
        return {"reminders": [], "total": 0}
    # A reminder fires before its occurrence: read occurrences up to the longest lead later.
    found = in_range(ctx.db, begins, ends + timedelta(minutes=longest))
    due = []
    for occ in found:
        for reminder in occ.series.reminders:
            fires = occ.start - timedelta(minutes=reminder.minutes_before)
            if begins <= fires < ends:
                due.append((fires, reminder, occ))
    due.sort(key=lambda item: (item[0], item[1].id))
    shown = [
        {"fires_at": serialize.iso(f), "local_fires_at": times.local(f, tz), **serialize.reminder(r),
         "occurrence": serialize.occurrence(o, tz)}
        for f, r, o in due
    ]
    return {"reminders": shown, "total": len(shown)}


@tools.capability("reminder_remove", destructive=True, idempotent=True, example={"reminder_id": 2})
def reminder_remove(ctx: CallContext, args: inputs.ReminderRef) -> Result:
    """Remove a reminder."""
    reminder = _reminder(ctx.db, args.reminder_id)
    shown = serialize.reminder(reminder)
    ctx.db.delete(reminder)
    ctx.db.flush()
    return {"removed": shown}

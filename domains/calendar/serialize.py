"""Records as JSON-friendly dicts. Instants are ISO 8601 in UTC, with the local time beside
them in the zone that matters (the event's own, or the one the caller asked for)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from domains.calendar import times
from domains.calendar.occurrences import Occurrence
from domains.calendar.tables import Attendee, Calendar, Event, Reminder
from facade.kit import iso


def calendar(c: Calendar) -> dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "description": c.description,
        "color": c.color,
        "timezone": c.timezone,
        "owner_email": c.owner_email,
    }


def attendee(a: Attendee) -> dict[str, Any]:
    return {"id": a.id, "event_id": a.event_id, "email": a.email, "name": a.name, "rsvp": a.rsvp}


def reminder(r: Reminder) -> dict[str, Any]:
    return {"id": r.id, "event_id": r.event_id, "minutes_before": r.minutes_before, "method": r.method}


def when(e: Event, start: datetime, end: datetime, tz: ZoneInfo) -> dict[str, Any]:
    """Start and end in UTC and in `tz`; all-day events also as dates (the end date inclusive)."""
    shown: dict[str, Any] = {
        "start": iso(start),
        "end": iso(end),
        "local_start": times.local(start, tz),
        "local_end": times.local(end, tz),
        "all_day": e.all_day,
    }
    if e.all_day:
        own = times.zone(e.timezone)
        shown["start_date"] = start.astimezone(own).date().isoformat()
        shown["end_date"] = (end.astimezone(own) - timedelta(days=1)).date().isoformat()
    return shown


def event(e: Event) -> dict[str, Any]:
    """An event in full; a changed occurrence shows the attendees and reminders of its series."""
    owner = e.series if e.series is not None else e
    shown: dict[str, Any] = {
        "id": e.id,
        "calendar_id": e.calendar_id,
        "calendar": e.calendar.name,
        "uid": owner.uid,
        "title": e.title,
        "description": e.description,
        "location": e.location,
        **when(e, e.start_at, e.end_at, times.zone(e.timezone)),
        "timezone": e.timezone,
        "show_as": e.show_as,
        "rrule": e.rrule,
        "attendees": [attendee(a) for a in owner.attendees],
        "reminders": [reminder(r) for r in owner.reminders],
    }
    if e.series_id is not None:
        shown |= {"series_id": e.series_id, "occurrence_start": iso(e.recurrence_id)}
    elif e.rrule is not None:
        shown["cancelled_occurrences"] = [iso(x.original_start) for x in e.exdates]
        shown["changed_occurrences"] = [
            {"event_id": o.id, "occurrence_start": iso(o.recurrence_id), "start": iso(o.start_at)} for o in e.overrides
        ]
    return shown


def occurrence(o: Occurrence, tz: ZoneInfo) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "event_id": o.event.id,
        "calendar_id": o.event.calendar_id,
        "title": o.event.title,
        "location": o.event.location,
        **when(o.event, o.start, o.end, tz),
        "show_as": o.event.show_as,
    }
    if o.original_start is not None:
        changed = o.event is not o.series
        shown |= {"series_id": o.series.id, "occurrence_start": iso(o.original_start), "changed": changed}
    return shown

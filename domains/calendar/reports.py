"""Reading across events: duplicate detection and statistics over a range."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import func, select

from domains.calendar import inputs, times
from domains.calendar.entities import CALENDAR
from domains.calendar.occurrences import in_range
from domains.calendar.tables import Attendee, Event
from facade.kit import CallContext, Toolset

tools = Toolset()

Result = dict[str, Any]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@tools.capability("event_duplicate_find", read_only=True, example={})
def event_duplicate_find(ctx: CallContext, args: inputs.DuplicateFind) -> Result:
    """Find events that repeat another's title, start and end, across calendars."""
    for calendar_id in args.calendar_ids or []:
        CALENDAR.fetch(ctx.db, calendar_id)
    key = (func.lower(Event.title), Event.start_at, Event.end_at)
    where = [Event.series_id.is_(None)]
    if args.calendar_ids:
        where.append(Event.calendar_id.in_(args.calendar_ids))
    groups = (
        select(*key).where(*where).group_by(*key).having(func.count() > 1).order_by(Event.start_at, key[0])
    )
    total = ctx.db.scalar(select(func.count()).select_from(groups.subquery()))
    found = []
    for title, start_at, end_at in ctx.db.execute(groups.limit(args.limit).offset(args.offset)):
        rows = ctx.db.execute(
            select(Event.id, Event.calendar_id, Event.title)
            .where(*where, func.lower(Event.title) == title, Event.start_at == start_at, Event.end_at == end_at)
            .order_by(Event.id)
        ).all()
        found.append(
            {
                "title": rows[0].title,
                "start": start_at.isoformat(),
                "end": end_at.isoformat(),
                "events": [{"event_id": i, "calendar_id": c} for i, c, _t in rows],
            }
        )
    return {"duplicates": found, "total": total}


@tools.capability(
    "calendar_stats",
    read_only=True,
    example={"start": "2026-12-01", "end": "2027-01-01", "timezone": "Europe/Berlin", "calendar_ids": [1, 2]},
)
def calendar_stats(ctx: CallContext, args: inputs.Stats) -> Result:
    """Count events, occurrences, busy hours, weekdays and RSVPs over a range."""
    for calendar_id in args.calendar_ids or []:
        CALENDAR.fetch(ctx.db, calendar_id)
    tz = times.zone(args.timezone)
    begins, ends = times.window(args.start, args.end, tz)
    found = in_range(ctx.db, begins, ends, args.calendar_ids)
    series_ids = {o.series.id for o in found}
    busy_hours = sum(
        (min(o.end, ends) - max(o.start, begins)).total_seconds() / 3600 for o in found if o.event.show_as == "busy"
    )
    weekdays = Counter(WEEKDAYS[o.start.astimezone(tz).weekday()] for o in found)
    rsvp = dict(
        ctx.db.execute(
            select(Attendee.rsvp, func.count()).where(Attendee.event_id.in_(series_ids)).group_by(Attendee.rsvp)
        ).all()
    ) if series_ids else {}
    locations = Counter(o.event.location for o in found if o.event.location)
    return {
        "start": begins.isoformat(),
        "end": ends.isoformat(),
        "occurrences": len(found),
        "events": len(series_ids),
        "series": len({o.series.id for o in found if o.series.rrule}),
        "all_day": sum(1 for o in found if o.event.all_day),
        "changed_occurrences": sum(1 for o in found if o.event is not o.series),
        "busy_hours": round(busy_hours, 2),
        "by_weekday": {day: weekdays.get(day, 0) for day in WEEKDAYS},
        "by_calendar": dict(Counter(str(o.event.calendar_id) for o in found)),
        "attendee_rsvps": rsvp,
        "top_locations": [{"location": loc, "occurrences": n} for loc, n in locations.most_common(5)],
    }

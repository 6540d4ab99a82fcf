"""Reading time: occurrences in a range, the agenda of a day or week, free/busy, free slots for
several people, and conflicts. All of it reads `occurrences.in_range`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from domains.calendar import availability, inputs, serialize, times
from domains.calendar.entities import CALENDAR
from domains.calendar.occurrences import in_range
from domains.calendar.tables import Calendar
from facade.kit import CallContext, InvalidRequest, Toolset

tools = Toolset()

Result = dict[str, Any]
WEEK = {"start": "2026-12-07T00:00:00+01:00", "end": "2026-12-12T00:00:00+01:00", "timezone": "Europe/Berlin"}


def _calendars(ctx: CallContext, ids: list[int] | None) -> list[int] | None:
    """The calendar ids, each checked to exist (an empty answer must not hide a typo)."""
    for calendar_id in ids or []:
        CALENDAR.fetch(ctx.db, calendar_id)
    return ids or None


@tools.capability("occurrence_list", read_only=True, example=WEEK)
def occurrence_list(ctx: CallContext, args: inputs.OccurrenceFilter) -> Result:
    """List what happens in a time range, series expanded, in start order."""
    tz = times.zone(args.timezone)
    begins, ends = times.window(args.start, args.end, tz)
    found = in_range(ctx.db, begins, ends, _calendars(ctx, args.calendar_ids))
    return {"occurrences": [serialize.occurrence(o, tz) for o in found], "total": len(found)}


@tools.capability("agenda_get", read_only=True, example={"day": "2026-12-09", "timezone": "Europe/Berlin"})
def agenda_get(ctx: CallContext, args: inputs.Agenda) -> Result:
    """Get the agenda of a day or a week, grouped by local day, all-day events first."""
    tz = times.zone(args.timezone)
    days = [args.day + timedelta(days=i) for i in range(7 if args.span == "week" else 1)]
    begins, ends = times.midnight(days[0], tz), times.midnight(days[-1] + timedelta(days=1), tz)
    found = in_range(ctx.db, begins, ends, _calendars(ctx, args.calendar_ids))
    agenda = []
    for day in days:
        opens, closes = times.midnight(day, tz), times.midnight(day + timedelta(days=1), tz)
        today = [o for o in found if o.start < closes and o.end > opens]
        today.sort(key=lambda o: (not o.event.all_day, o.start))
        agenda.append({"date": day.isoformat(), "items": [serialize.occurrence(o, tz) for o in today]})
    return {"timezone": args.timezone, "days": agenda}


@tools.capability(
    "freebusy_get",
    read_only=True,
    example={**WEEK, "emails": ["sam@example.com", "priya@example.com"]},
)
def freebusy_get(ctx: CallContext, args: inputs.FreeBusy) -> Result:
    """Get the busy intervals of people (by e-mail) or calendars over a range."""
    tz = times.zone(args.timezone)
    begins, ends = times.window(args.start, args.end, tz)
    calendar_ids = args.calendar_ids or ([] if args.emails else list(ctx.db.scalars(select(Calendar.id))))
    _calendars(ctx, args.calendar_ids)
    found = in_range(ctx.db, begins, ends)

    def shown(intervals: list[availability.Interval]) -> list[Result]:
        return [{"start": serialize.iso(s), "end": serialize.iso(e), "local_start": times.local(s, tz)}
                for s, e in intervals]

    people = {email: shown(availability.busy_of(found, email)) for email in dict.fromkeys(args.emails)}
    calendars = {
        str(cid): shown(availability.merged((o.start, o.end) for o in found if o.event.calendar_id == cid
                                            and o.event.show_as == "busy"))
        for cid in calendar_ids
    }
    return {"start": begins.isoformat(), "end": ends.isoformat(), "people": people, "calendars": calendars}


@tools.capability(
    "slot_find",
    read_only=True,
    example={**WEEK, "emails": ["sam@example.com", "priya@example.com", "marco@example.com"], "duration_minutes": 60},
)
def slot_find(ctx: CallContext, args: inputs.SlotFind) -> Result:
    """Find times within working hours when all the given people are free."""
    if args.day_end <= args.day_start:
        raise InvalidRequest(f"day_end ({args.day_end}) must come after day_start ({args.day_start})")
    tz = times.zone(args.timezone)
    begins, ends = times.window(args.start, args.end, tz)
    found = in_range(ctx.db, begins, ends)
    busy = availability.merged(i for email in args.emails for i in availability.busy_of(found, email))
    windows = availability.working_windows(begins, ends, tz, args.day_start, args.day_end, args.weekdays_only)
    free = availability.slots(windows, busy, timedelta(minutes=args.duration_minutes), args.limit)
    return {
        "slots": [{"start": serialize.iso(s), "end": serialize.iso(e), "local_start": times.local(s, tz),
                   "local_end": times.local(e, tz)} for s, e in free],
        "emails": args.emails,
    }


@tools.capability("conflict_list", read_only=True, example=WEEK)
def conflict_list(ctx: CallContext, args: inputs.ConflictFilter) -> Result:
    """List pairs of busy occurrences that overlap in a range."""
    tz = times.zone(args.timezone)
    begins, ends = times.window(args.start, args.end, tz)
    found = in_range(ctx.db, begins, ends, _calendars(ctx, args.calendar_ids))
    busy = [o for o in found if (o.busy_for(args.email) if args.email else o.event.show_as == "busy")]
    pairs = [
        {
            "first": serialize.occurrence(a, tz),
            "second": serialize.occurrence(b, tz),
            "overlap_minutes": int((min(a.end, b.end) - max(a.start, b.start)).total_seconds() // 60),
        }
        for a, b in availability.overlaps(busy)
    ]
    return {"conflicts": pairs, "total": len(pairs)}

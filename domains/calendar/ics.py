"""iCalendar files: export one event or a whole calendar as .ics text, import .ics text into a
calendar or as a new one. Imports report each VEVENT; one already imported (same UID) is
refused, so importing a file twice adds nothing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from domains.calendar import changes, ical, inputs, recurrence, serialize, times
from domains.calendar.calendars import name_free
from domains.calendar.entities import CALENDAR, EVENT
from domains.calendar.tables import Attendee, Calendar, Event, Exdate, Reminder
from facade.kit import CallContext, Conflict, NotFound, Toolset, each

if TYPE_CHECKING:  # imported where .ics text is read (ical.parse)
    import icalendar

tools = Toolset()

Result = dict[str, Any]


def _filename(text: str) -> str:
    return (re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "calendar")[:80] + ".ics"


@tools.capability("event_export", read_only=True, example={"event_id": 3})
def event_export(ctx: CallContext, args: inputs.EventRef) -> Result:
    """Export an event or series, with its changed occurrences, as .ics text."""
    event = EVENT.fetch(ctx.db, args.event_id)
    series = event.series or event  # a changed occurrence travels with its series
    return {"filename": _filename(series.title), "ics": ical.document(series.calendar, [series])}


@tools.capability("calendar_export", read_only=True, example={"calendar_id": 1})
def calendar_export(ctx: CallContext, args: inputs.CalendarRef) -> Result:
    """Export a whole calendar as .ics text."""
    calendar = CALENDAR.fetch(ctx.db, args.calendar_id)
    events = list(
        ctx.db.scalars(
            select(Event)
            .where(Event.calendar_id == calendar.id, Event.series_id.is_(None))
            .options(selectinload(Event.attendees), selectinload(Event.reminders), selectinload(Event.exdates))
            .order_by(Event.start_at, Event.id)
        )
    )
    return {"filename": _filename(calendar.name), "events": len(events), "ics": ical.document(calendar, events)}


def import_into(db: Session, calendar: Calendar, cal: icalendar.Calendar) -> Result:
    """Every VEVENT of `cal` into `calendar`: series and single events first, then the changed
    occurrences of the series this call created."""
    vevents = cal.walk("VEVENT")
    masters = [v for v in vevents if v.get("recurrence-id") is None]
    overrides = [v for v in vevents if v.get("recurrence-id") is not None]
    created: dict[str, Event] = {}

    def create(index: int) -> Result:
        item = ical.read_event(masters[index], calendar.timezone)
        if item.uid is not None:
            clash = db.scalar(select(Event.id).where(Event.uid == item.uid))
            if clash is not None:
                raise Conflict(f"UID {item.uid} already is event {clash}; it was imported before")
        event = changes.new_event(db, calendar, item.fields, uid=item.uid)
        for email, name, rsvp in {a[0]: a for a in item.attendees}.values():
            event.attendees.append(Attendee(email=email, name=name, rsvp=rsvp))
        for minutes, method in dict.fromkeys(item.reminders):
            event.reminders.append(Reminder(minutes_before=minutes, method=method))
        if event.rrule is not None:
            tz = times.zone(event.timezone)
            rule = recurrence.rule_for(event.rrule, event.start_at, tz)
            for original in {times.instant(x, tz) for x in item.exdates}:
                if recurrence.is_occurrence(rule, original.astimezone(tz)):  # others cancel nothing
                    event.exdates.append(Exdate(original_start=original))
        db.flush()
        created[event.uid or ""] = event
        return {"event_id": event.id, "uid": event.uid, "title": event.title}

    def change(index: int) -> Result:
        item = ical.read_event(overrides[index], calendar.timezone)
        series = created.get(item.uid or "")
        if series is None:
            raise NotFound(f"the changed occurrence of UID {item.uid} has no series created by this import; include it")
        assert item.recurrence_id is not None
        override = changes.override_for(db, series, changes.original_start(series, item.recurrence_id))
        t = changes.timing(item.fields.start, item.fields.end, item.fields.all_day, series.timezone)
        override.start_at, override.end_at, override.all_day = t.start_at, t.end_at, t.all_day
        override.title, override.location = item.fields.title, item.fields.location
        override.description, override.show_as = item.fields.description, item.fields.show_as or series.show_as
        db.flush()
        return {"event_id": override.id, "uid": item.uid, "series_id": series.id}

    events = each(range(len(masters)), "index", create)
    changed = each(range(len(overrides)), "index", change)
    return {
        "calendar": serialize.calendar(calendar),
        "events": events["results"],
        "changed_occurrences": changed["results"],
        "succeeded": events["succeeded"] + changed["succeeded"],
        "failed": events["failed"] + changed["failed"],
    }


SAMPLE_ICS = "\n".join(
    [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Example Corp//Conference//EN",
        "BEGIN:VEVENT",
        "UID:websummit-2026-keynote@example.org",
        "DTSTAMP:20261101T120000Z",
        "SUMMARY:Web Summit: opening keynote",
        "LOCATION:MEO Arena, Lisbon",
        "DTSTART;TZID=Europe/Lisbon:20261215T093000",
        "DTEND;TZID=Europe/Lisbon:20261215T103000",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "DESCRIPTION:Keynote",
        "TRIGGER:-PT20M",
        "END:VALARM",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:websummit-2026-standup@example.org",
        "DTSTAMP:20261101T120000Z",
        "SUMMARY:Booth team check-in",
        "DTSTART;TZID=Europe/Lisbon:20261215T080000",
        "DTEND;TZID=Europe/Lisbon:20261215T081500",
        "RRULE:FREQ=DAILY;COUNT=3",
        "ATTENDEE;CN=Marco Bianchi;PARTSTAT=ACCEPTED:mailto:marco@example.com",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
)


@tools.capability("event_import", example={"calendar_id": 1, "ics": SAMPLE_ICS})
def event_import(ctx: CallContext, args: inputs.EventImport) -> Result:
    """Import the events of .ics text into a calendar, reporting each one."""
    calendar = CALENDAR.fetch(ctx.db, args.calendar_id)
    return import_into(ctx.db, calendar, ical.parse(args.ics))


SAMPLE_CALENDAR = "\n".join(
    [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Example Corp//Trips//EN",
        "X-WR-CALNAME:Lisbon trip",
        "X-WR-TIMEZONE:Europe/Lisbon",
        "BEGIN:VEVENT",
        "UID:lisbon-2026-flight@example.org",
        "DTSTAMP:20261101T120000Z",
        "SUMMARY:Flight NW4821 BER-LIS",
        "DTSTART:20261209T070500Z",
        "DTEND:20261209T105000Z",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:lisbon-2026-hotel@example.org",
        "DTSTAMP:20261101T120000Z",
        "SUMMARY:Hotel Mar, Cascais",
        "DTSTART;VALUE=DATE:20261209",
        "DTEND;VALUE=DATE:20261212",
        "TRANSP:TRANSPARENT",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
)


@tools.capability("calendar_import", example={"ics": SAMPLE_CALENDAR})
def calendar_import(ctx: CallContext, args: inputs.CalendarImport) -> Result:
    """Create a calendar from .ics text, with every event in it."""
    cal = ical.parse(args.ics)
    name = args.name or str(cal.get("x-wr-calname") or "").strip()[:100] or "Imported calendar"
    zone_name = args.timezone or str(cal.get("x-wr-timezone") or "").strip() or "UTC"
    times.zone(zone_name)
    name_free(ctx.db, name)
    calendar = Calendar(name=name, timezone=zone_name)
    ctx.db.add(calendar)
    ctx.db.flush()
    return import_into(ctx.db, calendar, cal)

"""iCalendar (RFC 5545) in and out with the `icalendar` package: events become VEVENTs with
their RRULE, EXDATEs, changed occurrences (RECURRENCE-ID), attendees and alarms, and back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from domains.calendar import times
from domains.calendar.inputs import EventFields
from domains.calendar.tables import Calendar, Event
from facade.kit import InvalidRequest, importing

# icalendar is imported by the functions that read or write iCalendar: at module level it was
# part of every server's start-up (issue 14), for the few calls that exchange .ics text; under
# `importing()`, one lazy import at a time (facade/kit/lazy_imports.py).
if TYPE_CHECKING:
    import icalendar

PRODID = "-//Facade//calendar//EN"
PARTSTAT = {"needs_action": "NEEDS-ACTION", "accepted": "ACCEPTED", "tentative": "TENTATIVE", "declined": "DECLINED"}
RSVP = {v: k for k, v in PARTSTAT.items()}


def _moment(e: Event, value: datetime) -> datetime | date:
    """An instant as the VEVENT writes it: a local date for all-day events, else zoned time."""
    local = value.astimezone(times.zone(e.timezone))
    return local.date() if e.all_day else local


def vevent(e: Event, series: Event | None = None) -> icalendar.Event:
    with importing():
        import icalendar
        from icalendar import vCalAddress, vRecur

    owner = series or e
    v = icalendar.Event()
    v.add("uid", owner.uid)
    v.add("dtstamp", e.updated_at.astimezone(UTC))
    v.add("summary", e.title)
    if e.description:
        v.add("description", e.description)
    if e.location:
        v.add("location", e.location)
    v.add("dtstart", _moment(e, e.start_at))
    v.add("dtend", _moment(e, e.end_at))
    v.add("transp", "TRANSPARENT" if e.show_as == "free" else "OPAQUE")
    if series is not None and e.recurrence_id is not None:
        v.add("recurrence-id", _moment(series, e.recurrence_id))
    if e.rrule:
        v.add("rrule", vRecur.from_ical(e.rrule))
        if e.exdates:
            v.add("exdate", [_moment(e, x.original_start) for x in e.exdates])
    for a in owner.attendees:
        address = vCalAddress(f"mailto:{a.email}")
        address.params["PARTSTAT"] = PARTSTAT[a.rsvp]
        if a.name:
            address.params["CN"] = a.name
        v.add("attendee", address, encode=False)
    for r in owner.reminders:
        alarm = icalendar.Alarm()
        alarm.add("action", r.method.upper())
        alarm.add("trigger", timedelta(minutes=-r.minutes_before))
        alarm.add("description", e.title)
        if r.method == "email":
            alarm.add("summary", e.title)
        v.add_component(alarm)
    return v


def document(calendar: Calendar, events: Sequence[Event]) -> str:
    """A VCALENDAR of `events` (series with their changed occurrences), zones included."""
    with importing():
        import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("x-wr-calname", calendar.name)
    cal.add("x-wr-timezone", calendar.timezone)
    for e in events:
        cal.add_component(vevent(e))
        for override in e.overrides:
            cal.add_component(vevent(override, e))
    cal.add_missing_timezones()
    return cal.to_ical().decode()


def parse(text: str) -> icalendar.Calendar:
    with importing():
        import icalendar

    try:
        cal = icalendar.Calendar.from_ical(text)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise InvalidRequest(f"the .ics text cannot be read ({exc}); pass a whole VCALENDAR, BEGIN to END") from None
    if not isinstance(cal, icalendar.Calendar) or cal.name != "VCALENDAR":
        raise InvalidRequest("the .ics text is not a VCALENDAR; it must start with BEGIN:VCALENDAR")
    return cal


@dataclass
class Imported:
    """One VEVENT read into the fields this store keeps."""

    uid: str | None
    fields: EventFields
    recurrence_id: datetime | date | None = None
    exdates: list[datetime | date] = field(default_factory=list)
    attendees: list[tuple[str, str, str]] = field(default_factory=list)
    reminders: list[tuple[int, str]] = field(default_factory=list)


def _zone_name(value: datetime | date, fallback: str) -> str:
    tzinfo = value.tzinfo if isinstance(value, datetime) else None
    if isinstance(tzinfo, ZoneInfo):
        return tzinfo.key
    if tzinfo is not None and value.utcoffset() == timedelta(0):  # type: ignore[union-attr]
        return "UTC"
    return fallback  # floating time, or a zone without an IANA name: read it in the calendar's zone


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value is not None else []


def read_event(v: icalendar.Event, default_zone: str) -> Imported:
    """A VEVENT as event fields; an all-day DTEND (exclusive) becomes the inclusive last day."""
    if v.get("dtstart") is None:
        raise InvalidRequest("the VEVENT has no DTSTART; every event needs a start")
    start = v.decoded("dtstart")
    end = v.decoded("dtend") if v.get("dtend") is not None else None
    if end is None and v.get("duration") is not None:
        end = start + v.decoded("duration")
    all_day = not isinstance(start, datetime)
    if all_day and end is not None:
        end = end - timedelta(days=1) if end > start else start
    zone_name = _zone_name(start, default_zone)
    try:
        fields = EventFields(
            title=str(v.get("summary") or "(no title)").strip()[:300] or "(no title)",
            start=start,
            end=end,
            all_day=all_day,
            timezone=zone_name,
            location=str(v.get("location") or "")[:300],
            description=str(v.get("description") or "")[:10_000],
            rrule=v["rrule"].to_ical().decode() if v.get("rrule") is not None else None,
            show_as="free" if str(v.get("transp") or "").upper() == "TRANSPARENT" else "busy",
        )
    except ValidationError as exc:  # a VEVENT whose values do not fit the fields: that event's failure
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "value"
        raise InvalidRequest(f"{where}: {first['msg']}") from None
    imported = Imported(uid=str(v["uid"]) if v.get("uid") else None, fields=fields)
    if v.get("recurrence-id") is not None:
        imported.recurrence_id = v.decoded("recurrence-id")
    for exdate in _listed(v.get("exdate")):
        imported.exdates.extend(d.dt for d in exdate.dts)
    for address in _listed(v.get("attendee")):
        email = str(address).split(":", 1)[-1].strip().lower()
        partstat = str(address.params.get("PARTSTAT", "NEEDS-ACTION")).upper()
        if "@" in email:
            name = str(address.params.get("CN", ""))[:120]
            imported.attendees.append((email, name, RSVP.get(partstat, "needs_action")))
    for alarm in v.walk("VALARM"):
        trigger = alarm.get("trigger")
        lead = trigger.dt if trigger is not None else None
        # Only alarms before the start are kept; an absolute or after-start trigger has no field here.
        if isinstance(lead, timedelta) and lead <= timedelta(0):
            method = "email" if str(alarm.get("action", "")).upper() == "EMAIL" else "display"
            imported.reminders.append((int(-lead.total_seconds() // 60), method))
    return imported

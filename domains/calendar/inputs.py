"""The arguments of every calendar capability. Times are ISO 8601; one without an offset is read
in the event's (or the calendar's) zone, and a bare date means an all-day event."""

from __future__ import annotations

from datetime import date, time
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from domains.calendar.tables import ReminderMethod, Rsvp, ShowAs
from domains.calendar.times import When
from facade.kit import Id, Input, Page

Name = Annotated[str, Field(min_length=1, max_length=100)]
Title = Annotated[str, Field(min_length=1, max_length=300)]
Text = Annotated[str, Field(max_length=10_000)]
Zone = Annotated[str, Field(min_length=1, max_length=64, description="IANA zone, e.g. Europe/Berlin.")]
Email = Annotated[str, Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
Color = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]
RRule = Annotated[str, Field(min_length=6, max_length=500, description="RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=MO.")]
Ics = Annotated[str, Field(min_length=20, max_length=2_000_000, description="iCalendar (.ics) text.")]
CalendarIds = Annotated[list[Id], Field(max_length=50)]
Emails = Annotated[list[Email], Field(min_length=1, max_length=20)]
OccurrenceStart = Annotated[
    When, Field(description="Original start of one occurrence of a series; omit to act on the whole event.")
]

# Calendars


class CalendarCreate(Input):
    name: Name
    description: Text = ""
    color: Color | None = None
    timezone: Zone = "UTC"
    owner_email: Email | None = Field(None, description="Whose time it books, for free/busy.")


class CalendarUpdate(Input):
    calendar_id: Id
    name: Name | None = None
    description: Text | None = None
    color: Color | None = None
    timezone: Zone | None = None
    owner_email: Email | None = None


class CalendarDelete(Input):
    calendar_id: Id
    force: bool = Field(False, description="Also delete its events.")


class CalendarRef(Input):
    calendar_id: Id


# Events


class EventFields(Input):
    title: Title
    start: When
    end: When | None = Field(None, description="Default: 1 hour later; for all-day events the last day, inclusive.")
    all_day: bool | None = Field(None, description="Default: true when start is a bare date.")
    timezone: Zone | None = Field(None, description="Default: the calendar's.")
    location: Annotated[str, Field(max_length=300)] = ""
    description: Text = ""
    rrule: RRule | None = None
    show_as: ShowAs | None = Field(None, description="Default: busy, or free for all-day events.")


class EventCreate(EventFields):
    calendar_id: Id


class EventUpdate(Input):
    event_id: Id
    occurrence_start: OccurrenceStart | None = None
    title: Title | None = None
    start: When | None = Field(None, description="Alone, it moves the event and keeps its length.")
    end: When | None = None
    all_day: bool | None = None
    timezone: Zone | None = None
    location: Annotated[str, Field(max_length=300)] | None = None
    description: Text | None = None
    rrule: RRule | None = Field(None, description="null ends the recurrence.")
    show_as: ShowAs | None = None
    calendar_id: Id | None = Field(None, description="Move the event (with its series) to this calendar.")


class EventDelete(Input):
    event_id: Id
    occurrence_start: OccurrenceStart | None = None


class EventFilter(Page):
    calendar_id: Id | None = None
    query: Annotated[str, Field(min_length=1, max_length=100)] | None = Field(
        None, description="Found in title, location or description."
    )
    starts_after: When | None = None
    starts_before: When | None = None
    recurring: bool | None = None


class OccurrenceRef(Input):
    event_id: Id
    occurrence_start: OccurrenceStart


# Reading time


class Range(Input):
    start: When
    end: When
    timezone: Zone = Field("UTC", description="For times without offset and for local times shown.")


class OccurrenceFilter(Range):
    calendar_ids: CalendarIds | None = Field(None, description="Default: all calendars.")


class Agenda(Input):
    day: date
    span: Literal["day", "week"] = Field("day", description="week: the 7 days from day.")
    timezone: Zone = "UTC"
    calendar_ids: CalendarIds | None = None


class FreeBusy(Range):
    emails: Annotated[list[Email], Field(max_length=20)] = Field(default_factory=list)
    calendar_ids: CalendarIds = Field(default_factory=list)


class SlotFind(Range):
    emails: Emails
    duration_minutes: int = Field(ge=5, le=1440)
    day_start: time = Field(time(9), description="Working hours, in timezone.")
    day_end: time = time(17)
    weekdays_only: bool = True
    limit: int = Field(5, ge=1, le=50)


class ConflictFilter(OccurrenceFilter):
    email: Email | None = Field(None, description="Only this person's busy time.")


# Attendees and reminders


class AttendeeAdd(Input):
    event_id: Id
    email: Email
    name: Annotated[str, Field(max_length=120)] = ""
    rsvp: Rsvp = "needs_action"


class AttendeeUpdate(Input):
    attendee_id: Id
    rsvp: Rsvp | None = None
    name: Annotated[str, Field(max_length=120)] | None = None


class AttendeeRef(Input):
    attendee_id: Id


class ReminderAdd(Input):
    event_id: Id
    minutes_before: int = Field(ge=0, le=40_320)
    method: ReminderMethod = "display"


class ReminderRef(Input):
    reminder_id: Id


# Full tier


class RecurrencePreview(Input):
    rrule: RRule
    start: When
    timezone: Zone = "UTC"
    count: int = Field(10, ge=1, le=100)


class EventImport(Input):
    calendar_id: Id
    ics: Ics


class CalendarImport(Input):
    ics: Ics
    name: Name | None = Field(None, description="Default: the file's X-WR-CALNAME.")
    timezone: Zone | None = Field(None, description="Default: the file's X-WR-TIMEZONE, else UTC.")


class EventRef(Input):
    event_id: Id


class EventBulkCreate(Input):
    calendar_id: Id
    events: Annotated[list[EventFields], Field(min_length=1, max_length=100)]


class EventBulkMove(Input):
    from_calendar_id: Id
    to_calendar_id: Id


class EventBulkDelete(Input):
    event_ids: Annotated[list[Id], Field(min_length=1, max_length=200)]


class DuplicateFind(Page):
    calendar_ids: CalendarIds | None = None


class Stats(Range):
    calendar_ids: CalendarIds | None = None

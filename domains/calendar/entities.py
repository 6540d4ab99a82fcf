"""The domain's records as data: what each is called, its table and how it renders."""

from __future__ import annotations

from sqlalchemy.orm import selectinload

from domains.calendar import serialize
from domains.calendar.tables import Attendee, Calendar, Event, Reminder
from facade.kit import Entity

CALENDAR: Entity[Calendar] = Entity("calendar", "calendar", "calendars", Calendar, serialize.calendar)
EVENT: Entity[Event] = Entity(
    "calendar",
    "event",
    "events",
    Event,
    serialize.event,
    load=(
        selectinload(Event.attendees),
        selectinload(Event.reminders),
        selectinload(Event.exdates),
        selectinload(Event.overrides),
    ),
)
ATTENDEE: Entity[Attendee] = Entity("calendar", "attendee", "attendees", Attendee, serialize.attendee)
REMINDER: Entity[Reminder] = Entity("calendar", "reminder", "reminders", Reminder, serialize.reminder)

"""Calendars and events: recurring series with cancelled and changed occurrences, attendees,
reminders, free/busy, slot finding, conflicts, and iCalendar import and export."""

from domains.calendar.capabilities import domain

__all__ = ["domain"]

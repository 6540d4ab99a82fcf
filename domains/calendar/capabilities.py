"""The calendar domain: calendars, events and series, attendees, reminders, free/busy, slot
finding, conflicts, and iCalendar import and export.

The handlers live in modules by concept and register on `domain` when imported; the import
order below is the registration order, and so the order in which every example runs against a
freshly seeded database. Every example succeeds on this machine: the domain needs no backend.

Seeded ids (never reused): calendars 1 Work, 2 Personal (both Europe/Berlin, owned by
sam@example.com), 3 Team holidays (UTC), 4 Archived sprint (its example delete). Events 1-13:
1 Team standup (series Mon/Wed/Fri 09:30 Berlin from 2026-12-07, its 2026-12-09 occurrence
cancelled), 2 Q3 budget review, 3 1:1 series (biweekly Thursday), 4 a changed occurrence of 3,
5 Offsite planning and 6 Vendor call (they overlap), 7-10 personal (10 duplicates 2), 11 and 13
holidays, 12 in calendar 4. Attendees 1-13 (6 = Lena on event 2), reminders 1-2, one cancelled
occurrence. The examples create calendar 5, event 14 (a series), changed occurrence 15,
attendee 14 and reminder 3 (both removed again), events 16-17 by import into calendar 5,
calendar 6 with events 18-19 by calendar import, and events 20-21 by bulk creation.
"""

from __future__ import annotations

from pathlib import Path

from domains.calendar.seed import seed
from facade.kit import Domain

domain = Domain(
    "calendar",
    description="Calendars and events: series, attendees, reminders, free/busy and iCalendar files.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# The package's __init__ imports this module first, so these modules always find `domain` bound.
from domains.calendar import calendars, events, schedule, people, series, ics, bulk, reports  # noqa: E402,F401,I001

__all__ = ["domain"]

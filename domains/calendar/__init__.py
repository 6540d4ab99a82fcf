"""Calendars and events: recurring series with cancelled and changed occurrences, attendees,
reminders, free/busy, slot finding, conflicts, and iCalendar import and export.

Every example succeeds on a freshly seeded database whichever examples ran before it (the
domain needs no backend). Seeded ids (never reused): calendars 1 Work, 2 Personal (both
Europe/Berlin, owned by sam@example.com), 3 Team holidays (UTC), 4 Archived sprint. Events
1-13: 1 Team standup (series Mon/Wed/Fri 09:30 Berlin from 2026-12-07, its 2026-12-09
occurrence cancelled), 2 Q3 budget review, 3 1:1 series (biweekly Thursday), 4 a changed
occurrence of 3, 5 Offsite planning and 6 Vendor call (they overlap), 7-10 personal (10
duplicates 2), 11 and 13 holidays, 12 in calendar 4. Attendees 1-13 (6 = Lena on event 2),
reminders 1-2, one cancelled occurrence.
"""

from pathlib import Path

from domains.calendar import bulk, calendars, events, ics, people, reports, schedule, series
from domains.calendar.seed import seed
from facade.kit import Domain

domain = Domain(
    "calendar",
    description="Calendars and events: series, attendees, reminders, free/busy and iCalendar files.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(
        calendars.tools,
        events.tools,
        schedule.tools,
        people.tools,
        series.tools,
        ics.tools,
        bulk.tools,
        reports.tools,
    ),
)

__all__ = ["domain"]

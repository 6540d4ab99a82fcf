"""A small, believable set of calendars for the week of 7 December 2026; written only into an
empty store, always the same rows in the same order, so ids are 1..N on a fresh database
(capability examples rely on them)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.calendar.tables import Attendee, Calendar, Event, Exdate, Reminder

BERLIN = ZoneInfo("Europe/Berlin")
STAMP = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
SAM, PRIYA, MARCO, LENA = "sam@example.com", "priya@example.com", "marco@example.com", "lena@example.com"
NAMES = {SAM: "Sam Rivera", PRIYA: "Priya Shah", MARCO: "Marco Bianchi", LENA: "Lena Fischer"}

# name, timezone, owner, colour, description
CALENDARS = [
    ("Work", "Europe/Berlin", SAM, "#2563eb", "Meetings and deadlines."),
    ("Personal", "Europe/Berlin", SAM, "#16a34a", ""),
    ("Team holidays", "UTC", None, "#f59e0b", "Who is away when."),
    ("Archived sprint", "Europe/Berlin", None, None, "Sprint 14, kept for the record."),
]


def _at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN).astimezone(UTC)


def _days(first: date, last: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """An all-day span: local midnight of the first day to local midnight after the last."""
    start = datetime(first.year, first.month, first.day, tzinfo=tz)
    end = datetime(last.year, last.month, last.day, tzinfo=tz) + timedelta(days=1)
    return start.astimezone(UTC), end.astimezone(UTC)


D = date
# calendar, title, (start, end), all_day, rrule, location, show_as, attendees (email, rsvp), reminders,
# override of (event number) — all in list order, so event ids follow the list.
EVENTS: list[dict[str, Any]] = [
    dict(cal=1, title="Team standup", when=(_at(D(2026, 12, 7), 9, 30), _at(D(2026, 12, 7), 9, 45)),
         rrule="FREQ=WEEKLY;BYDAY=MO,WE,FR", location="Room Hopper",
         attendees=[(SAM, "accepted"), (PRIYA, "accepted"), (MARCO, "accepted")]),
    dict(cal=1, title="Q3 budget review", when=(_at(D(2026, 12, 10), 14), _at(D(2026, 12, 10), 15)),
         location="Room Lovelace", attendees=[(PRIYA, "accepted"), (SAM, "accepted"), (LENA, "needs_action")],
         reminders=[15], description="Freeze the Q3 budget; bring the offsite estimate."),
    dict(cal=1, title="1:1 Priya / Sam", when=(_at(D(2026, 12, 3), 11), _at(D(2026, 12, 3), 11, 30)),
         rrule="FREQ=WEEKLY;INTERVAL=2;BYDAY=TH;COUNT=8", attendees=[(PRIYA, "accepted"), (SAM, "accepted")]),
    dict(cal=1, title="1:1 Priya / Sam", when=(_at(D(2026, 12, 17), 15), _at(D(2026, 12, 17), 15, 30)),
         override_of=3, recurrence_id=_at(D(2026, 12, 17), 11)),
    dict(cal=1, title="Offsite planning", when=(_at(D(2026, 12, 8), 10), _at(D(2026, 12, 8), 12)),
         location="Room Hopper", attendees=[(MARCO, "accepted"), (SAM, "accepted"), (PRIYA, "tentative")]),
    dict(cal=1, title="Vendor call: Quinta da Serra", when=(_at(D(2026, 12, 8), 11, 30), _at(D(2026, 12, 8), 12)),
         attendees=[(MARCO, "accepted")]),
    dict(cal=2, title="Dentist", when=(_at(D(2026, 12, 9), 8), _at(D(2026, 12, 9), 9)),
         location="Dr. Weiss, Kastanienallee 12", reminders=[60]),
    dict(cal=2, title="Running club", when=(_at(D(2026, 12, 1), 19), _at(D(2026, 12, 1), 20)),
         rrule="FREQ=WEEKLY;BYDAY=TU;UNTIL=20270330T180000Z", location="Tempelhofer Feld"),
    dict(cal=2, title="Mum's birthday", when=_days(D(2026, 12, 12), D(2026, 12, 12), BERLIN), all_day=True,
         rrule="FREQ=YEARLY", show_as="free"),
    dict(cal=2, title="Q3 Budget Review", when=(_at(D(2026, 12, 10), 14), _at(D(2026, 12, 10), 15)),
         location="Room Lovelace"),
    dict(cal=3, title="Marco on holiday", when=_days(D(2026, 12, 21), D(2026, 12, 24), UTC), all_day=True,
         attendees=[(MARCO, "accepted")]),
    dict(cal=4, title="Sprint 14 retro", when=(_at(D(2026, 11, 20), 15), _at(D(2026, 11, 20), 16))),
    dict(cal=3, title="Christmas Day", when=_days(D(2026, 12, 25), D(2026, 12, 25), UTC), all_day=True,
         rrule="FREQ=YEARLY", show_as="free"),
]
# event number, cancelled occurrence start
EXDATES = [(1, _at(D(2026, 12, 9), 9, 30))]


def seed(session: Session) -> None:
    """Insert the demo calendars unless the calendars table already has rows."""
    if session.scalar(select(Calendar.id).limit(1)) is not None:
        return
    calendars = [
        Calendar(name=n, timezone=tz, owner_email=o, color=c, description=d, created_at=STAMP, updated_at=STAMP)
        for n, tz, o, c, d in CALENDARS
    ]
    session.add_all(calendars)
    session.flush()
    events: list[Event] = []
    for number, spec in enumerate(EVENTS, start=1):
        calendar = calendars[spec["cal"] - 1]
        series = events[spec["override_of"] - 1] if "override_of" in spec else None
        start, end = spec["when"]
        event = Event(
            calendar=calendar,
            series=series,
            recurrence_id=spec.get("recurrence_id"),
            uid=None if series else f"seed-{number}@calendar.example.com",
            title=spec["title"],
            description=spec.get("description", ""),
            location=spec.get("location", ""),
            start_at=start,
            end_at=end,
            all_day=spec.get("all_day", False),
            timezone=calendar.timezone,
            rrule=spec.get("rrule"),
            show_as=spec.get("show_as", "busy"),
            created_at=STAMP,
            updated_at=STAMP,
        )
        session.add(event)
        session.flush()  # one by one, so event ids follow the list
        events.append(event)
    for number, spec in enumerate(EVENTS, start=1):
        for email, rsvp in spec.get("attendees", []):
            session.add(Attendee(event=events[number - 1], email=email, name=NAMES[email], rsvp=rsvp,
                                 created_at=STAMP, updated_at=STAMP))
            session.flush()
    for number, spec in enumerate(EVENTS, start=1):
        for minutes in spec.get("reminders", []):
            session.add(Reminder(event=events[number - 1], minutes_before=minutes, created_at=STAMP))
    for number, original in EXDATES:
        events[number - 1].exdates.append(Exdate(original_start=original, created_at=STAMP))
    session.flush()

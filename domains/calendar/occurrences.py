"""Occurrences: what actually happens in a range once series are expanded, cancelled
occurrences dropped and changed ones put in their place. Agenda, free/busy, slots, conflicts
and reminders all read this one function."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session, selectinload

from domains.calendar import recurrence, times
from domains.calendar.tables import Event

BUSY_RSVP = ("needs_action", "accepted", "tentative")


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One occurrence. `event` holds what it shows (a changed occurrence's own record);
    `series` is the single event or series it belongs to (attendees and reminders live there);
    `original_start` is set for the occurrences of a series."""

    event: Event
    series: Event
    start: datetime
    end: datetime
    original_start: datetime | None

    def busy_for(self, email: str) -> bool:
        """Whether this occurrence books `email`'s time: the calendar is theirs, or they are
        invited and have not declined."""
        if self.event.show_as != "busy":
            return False
        if self.series.calendar.owner_email == email:
            return True
        return any(a.email == email and a.rsvp in BUSY_RSVP for a in self.series.attendees)


def of_series(series: Event, start: datetime, end: datetime) -> list[Occurrence]:
    """The occurrences of one single event or series overlapping [start, end)."""
    if series.rrule is None:
        if series.start_at < end and series.end_at > start:
            return [Occurrence(series, series, series.start_at, series.end_at, None)]
        return []
    tz = times.zone(series.timezone)
    rule = recurrence.rule_for(series.rrule, series.start_at, tz)
    duration = series.end_at - series.start_at
    replaced = {x.original_start for x in series.exdates} | {o.recurrence_id for o in series.overrides}
    found: list[Occurrence] = []
    for local_start in recurrence.starts(rule, start, end, duration):
        begins = local_start.astimezone(UTC)
        if begins not in replaced:
            found.append(Occurrence(series, series, begins, begins + duration, begins))
    for override in series.overrides:
        if override.start_at < end and override.end_at > start:
            found.append(Occurrence(override, series, override.start_at, override.end_at, override.recurrence_id))
    return found


def in_range(
    db: Session, start: datetime, end: datetime, calendar_ids: Sequence[int] | None = None
) -> list[Occurrence]:
    """Every occurrence overlapping [start, end), in the given calendars (default: all), by start."""
    overlaps_once = and_(Event.rrule.is_(None), Event.start_at < end, Event.end_at > start)
    # A series may have started long ago; only its first start bounds it. Its changed
    # occurrences may have moved anywhere, so a series with overrides is always read.
    may_recur = and_(Event.rrule.is_not(None), or_(Event.start_at < end, Event.overrides.any()))
    query = (
        select(Event)
        .where(Event.series_id.is_(None), or_(overlaps_once, may_recur))
        .options(selectinload(Event.exdates), selectinload(Event.overrides), selectinload(Event.attendees))
    )
    if calendar_ids:
        query = query.where(Event.calendar_id.in_(calendar_ids))
    found = [occ for series in db.scalars(query) for occ in of_series(series, start, end)]
    return sorted(found, key=lambda o: (o.start, o.end, o.event.id))

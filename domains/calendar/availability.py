"""Busy time as intervals: merged per person or calendar, subtracted from working hours to find
slots, and swept for overlaps to find conflicts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from domains.calendar.occurrences import Occurrence

Interval = tuple[datetime, datetime]
SLOT_STEP = timedelta(minutes=30)


def merged(intervals: Iterable[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def busy_of(occurrences: Iterable[Occurrence], email: str) -> list[Interval]:
    return merged((o.start, o.end) for o in occurrences if o.busy_for(email))


def working_windows(
    begins: datetime, ends: datetime, tz: ZoneInfo, day_start: time, day_end: time, weekdays_only: bool
) -> Iterator[Interval]:
    """The working hours of each local day between two instants, clipped to them."""
    day: date = begins.astimezone(tz).date()
    while True:
        opens = datetime.combine(day, day_start, tz)
        if opens >= ends:
            return
        closes = datetime.combine(day, day_end, tz)
        if not (weekdays_only and day.weekday() >= 5):
            window = (max(opens, begins), min(closes, ends))
            if window[0] < window[1]:
                yield window
        day += timedelta(days=1)


def slots(windows: Iterable[Interval], busy: list[Interval], length: timedelta, limit: int) -> list[Interval]:
    """Up to `limit` free slots of `length`, starting on the half hour, earliest first."""
    found: list[Interval] = []
    for opens, closes in windows:
        for gap_start, gap_end in _gaps(opens, closes, busy):
            start = _round_up(gap_start)
            while start + length <= gap_end:
                found.append((start, start + length))
                if len(found) >= limit:
                    return found
                start += SLOT_STEP
    return found


def _gaps(opens: datetime, closes: datetime, busy: list[Interval]) -> Iterator[Interval]:
    cursor = opens
    for start, end in busy:
        if end <= cursor or start >= closes:
            continue
        if start > cursor:
            yield cursor, start
        cursor = max(cursor, end)
    if cursor < closes:
        yield cursor, closes


def _round_up(moment: datetime) -> datetime:
    """The next half hour (of UTC, which is the half hour of every zone with whole-hour or
    half-hour offsets), or `moment` itself when it already is one."""
    step = int(SLOT_STEP.total_seconds())
    whole = moment.replace(microsecond=0) + (timedelta(seconds=1) if moment.microsecond else timedelta())
    seconds = int(whole.timestamp())
    return whole + timedelta(seconds=-(-seconds // step) * step - seconds)


def overlaps(occurrences: list[Occurrence]) -> Iterator[tuple[Occurrence, Occurrence]]:
    """Every pair of occurrences that overlap in time (the list is sorted by start)."""
    active: list[Occurrence] = []
    for occ in occurrences:
        active = [a for a in active if a.end > occ.start]
        for other in active:
            yield other, occ
        active.append(occ)

"""Time, once: IANA zones checked, caller times (ISO 8601 with or without an offset, or a bare
date) turned into UTC instants, and UTC instants shown back in a zone."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BeforeValidator

from facade.kit import InvalidRequest

DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_RANGE = timedelta(days=366)


def _date_if_bare(value: Any) -> Any:
    """"2026-12-08" is a date, not midnight of a datetime: all-day events depend on it."""
    if isinstance(value, str) and DATE_ONLY.match(value.strip()):
        return date.fromisoformat(value.strip())
    return value


When = Annotated[datetime | date, BeforeValidator(_date_if_bare)]


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidRequest(f"timezone {name!r} is not an IANA zone name; use e.g. 'Europe/Berlin' or 'UTC'") from None


def instant(value: datetime | date, tz: ZoneInfo) -> datetime:
    """A caller's time as a UTC instant; a time without offset, or a date (its midnight), is
    read in `tz`."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time(0))
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    return value.astimezone(UTC)


def midnight(day: date, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tz).astimezone(UTC)


def day_of(value: datetime | date, tz: ZoneInfo) -> date:
    """The calendar date a caller meant: a date as is, a datetime as read in `tz` (or as given,
    when it carries an offset)."""
    if not isinstance(value, datetime):
        return value
    return value.date() if value.tzinfo is None else value.astimezone(tz).date()


def local(value: datetime, tz: ZoneInfo) -> str:
    return value.astimezone(tz).isoformat()


def window(start: datetime | date, end: datetime | date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """A [start, end) range of instants, at most a year long (expansions stay cheap)."""
    begins, ends = instant(start, tz), instant(end, tz)
    if ends <= begins:
        raise InvalidRequest(f"end ({ends.isoformat()}) must come after start ({begins.isoformat()})")
    if ends - begins > MAX_RANGE:
        raise InvalidRequest("the range spans more than 366 days; ask for a shorter range, one part at a time")
    return begins, ends

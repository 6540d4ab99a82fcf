"""Date ranges in filters: a caller names days (`date_from`, `date_to`), both inclusive and
either optional, whatever the column holds. A date column compares with them directly; a
timestamp column (stored in UTC) keeps every moment of the last day, up to the next midnight."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Date, DateTime

from facade.kit.db import UTCDateTime


def within_days(column: Any, first: date | None, last: date | None) -> list[ColumnElement[bool]]:
    """The conditions that keep `column` (a Date or a UTC timestamp column) within the days
    `first` to `last`; none for a bound that is None."""
    conditions: list[ColumnElement[bool]] = []
    if isinstance(column.type, UTCDateTime | DateTime):
        if first is not None:
            conditions.append(column >= datetime.combine(first, time.min, UTC))
        if last is not None:
            conditions.append(column < datetime.combine(last + timedelta(days=1), time.min, UTC))
    elif isinstance(column.type, Date):
        if first is not None:
            conditions.append(column >= first)
        if last is not None:
            conditions.append(column <= last)
    else:
        raise TypeError(f"{column} is neither a date nor a timestamp column; a range of days cannot filter it")
    return conditions

"""The column types every inventory table shares: exact quantities and costs, UTC timestamps,
ids that are never reused, and CHECKs over a Literal's values."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, get_args

from sqlalchemy import CheckConstraint, DateTime, Dialect, Numeric
from sqlalchemy.types import TypeDecorator

# SQLite would hand a deleted row's id to the next insert; a model holding a stale id would then
# act on a different record. AUTOINCREMENT never reuses ids, like a PostgreSQL sequence.
NO_ID_REUSE: dict[str, Any] = {"sqlite_autoincrement": True}

# Quantities to the thousandth (grams of a kilogram, millimetres of a metre); costs to a
# hundredth of a cent, so that a moving average of cheap parts does not round to zero.
QUANTITY = Numeric(18, 3)
COST = Numeric(18, 4)


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend; SQLite keeps no zone, so UTC is stored
    and attached again on read."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def one_of(column: str, values: Any) -> CheckConstraint:
    """`column IN (...)` over a Literal's values, named `ck_<table>_<column>` by the convention."""
    listed = ", ".join(f"'{v}'" for v in get_args(values))
    return CheckConstraint(f"{column} IN ({listed})", name=column)

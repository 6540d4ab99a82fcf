"""The tables' side of the database: the declarative base every domain's tables share and the
column pieces they all declare the same way. The engine and sessions are the server's
(facade/serving/database.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, get_args

from sqlalchemy import CheckConstraint, DateTime, Dialect, MetaData
from sqlalchemy.orm import DeclarativeBase, MappedColumn, mapped_column
from sqlalchemy.types import TypeDecorator

# Stable constraint names, so that Alembic migrations read the same on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# The widest integers the columns hold: PostgreSQL's `integer`, every table's id, and its
# `bigint`, which SQLite's INTEGER matches. A larger value reaches no row and may not be bound.
INTEGER_MAX = 2**31 - 1
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1


# SQLite would hand a deleted row's id to the next insert, and a model holding a stale id would
# then act on a different record. AUTOINCREMENT never reuses ids, like a PostgreSQL sequence.
# A table's `__table_args__` carries it: `(..., NO_ID_REUSE)`.
NO_ID_REUSE: dict[str, Any] = {"sqlite_autoincrement": True}


class Base(DeclarativeBase):
    """Base of every domain table."""

    metadata = MetaData(naming_convention=NAMING)


def utcnow() -> datetime:
    """Now, timezone-aware in UTC: the one clock every table's timestamps read."""
    return datetime.now(UTC)


def iso(value: date | datetime | None) -> str | None:
    """A stored date or instant as callers read it, ISO 8601; None (not set) stays None."""
    return value.isoformat() if value is not None else None


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


def created_column() -> MappedColumn[Any]:
    """A `created_at` column: set once, when the row is inserted."""
    return mapped_column(UTCDateTime, default=utcnow)


def updated_column() -> MappedColumn[Any]:
    """An `updated_at` column: set on insert and again on every update through the ORM."""
    return mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


def one_of(column: str, values: Any) -> CheckConstraint:
    """`column IN (...)` over a Literal's values, named `ck_<table>_<column>` by the convention."""
    listed = ", ".join(f"'{v}'" for v in get_args(values))
    return CheckConstraint(f"{column} IN ({listed})", name=column)

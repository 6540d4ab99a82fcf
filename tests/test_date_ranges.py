"""Ranges of days in filters: both bounds inclusive on a date column and on a UTC timestamp
column, checked against rows on a real database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import String, create_engine, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from facade.kit import UTCDateTime, within_days


class Base(DeclarativeBase):
    """Apart from the facade's metadata, so the server's tables and migrations never see these."""


class Happening(Base):
    __tablename__ = "happening"

    id: Mapped[int] = mapped_column(primary_key=True)
    day: Mapped[date]
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    label: Mapped[str] = mapped_column(String(20))


MIDNIGHT_2 = datetime(2026, 10, 2, tzinfo=UTC)
ROWS = [
    ("1 late", date(2026, 10, 1), MIDNIGHT_2 - timedelta(microseconds=1)),
    ("2 midnight", date(2026, 10, 2), MIDNIGHT_2),
    ("2 late", date(2026, 10, 2), MIDNIGHT_2 + timedelta(days=1) - timedelta(microseconds=1)),
    ("3 midnight", date(2026, 10, 3), MIDNIGHT_2 + timedelta(days=1)),
]


@pytest.fixture
def db() -> Iterator[Session]:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add_all(Happening(label=label, day=day, at=at) for label, day, at in ROWS)
        session.flush()
        yield session
    engine.dispose()


def labels(db: Session, column: object, first: date | None, last: date | None) -> list[str]:
    rows = db.scalars(select(Happening.label).where(*within_days(column, first, last)).order_by(Happening.id))
    return list(rows)


class TestWithinDays:
    """A day range keeps whole days, on either kind of column, with either bound left open."""

    OCT_2 = date(2026, 10, 2)

    @pytest.mark.parametrize("column", [Happening.day, Happening.at], ids=["date", "timestamp"])
    def test_one_day_is_the_whole_day(self, db: Session, column: object) -> None:
        assert labels(db, column, self.OCT_2, self.OCT_2) == ["2 midnight", "2 late"]

    @pytest.mark.parametrize("column", [Happening.day, Happening.at], ids=["date", "timestamp"])
    def test_open_bounds(self, db: Session, column: object) -> None:
        assert labels(db, column, self.OCT_2, None) == ["2 midnight", "2 late", "3 midnight"]
        assert labels(db, column, None, self.OCT_2) == ["1 late", "2 midnight", "2 late"]
        assert labels(db, column, None, None) == [label for label, _, _ in ROWS]
        assert within_days(column, None, None) == []

    def test_a_column_of_another_kind(self) -> None:
        with pytest.raises(TypeError, match="neither a date nor a timestamp column"):
            within_days(Happening.label, self.OCT_2, None)

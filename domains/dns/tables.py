"""The dns domain's tables: a zone (its SOA fields inline), its records, and the history of
every change, each stamped with the serial it produced."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, get_args

from sqlalchemy import JSON, BigInteger, CheckConstraint, DateTime, Dialect, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from facade.kit import Base

RecordType = Literal["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "PTR"]
ChangeAction = Literal["zone_create", "zone_update", "import", "create", "update", "delete"]

# SQLite would hand a deleted row's id to the next insert, and a model holding a stale id would
# then change another record. AUTOINCREMENT never reuses ids, like a PostgreSQL sequence.
NO_ID_REUSE: dict[str, Any] = {"sqlite_autoincrement": True}


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


class Zone(Base):
    """A zone and its SOA: the serial is bumped by every change to the zone or its records."""

    __tablename__ = "dns_zone"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # Fully qualified, lowercase, without the trailing dot.
    name: Mapped[str] = mapped_column(String(253), unique=True)
    # A serial is an unsigned 32-bit number: more than a signed INTEGER holds.
    serial: Mapped[int] = mapped_column(BigInteger)
    ttl: Mapped[int] = mapped_column(Integer, default=3600)
    primary_ns: Mapped[str] = mapped_column(String(253))
    admin_email: Mapped[str] = mapped_column(String(254))
    refresh: Mapped[int] = mapped_column(Integer, default=7200)
    retry: Mapped[int] = mapped_column(Integer, default=3600)
    expire: Mapped[int] = mapped_column(Integer, default=1209600)
    minimum: Mapped[int] = mapped_column(Integer, default=300)
    notes: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    records: Mapped[list[Record]] = relationship(
        back_populates="zone", cascade="all, delete-orphan", passive_deletes=True, order_by="Record.id"
    )


class Record(Base):
    """One resource record. `name` is relative to the zone ("@" for the apex); host-name values
    are fully qualified without the trailing dot; a null ttl means the zone's default."""

    __tablename__ = "dns_record"
    __table_args__ = (one_of("type", RecordType), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    zone_id: Mapped[int] = mapped_column(ForeignKey("dns_zone.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(253))
    type: Mapped[str] = mapped_column(String(10))
    value: Mapped[str] = mapped_column(String(2000))
    ttl: Mapped[int | None] = mapped_column(Integer)
    # MX preference or SRV priority; SRV weight and port.
    priority: Mapped[int | None] = mapped_column(Integer)
    weight: Mapped[int | None] = mapped_column(Integer)
    port: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    zone: Mapped[Zone] = relationship(back_populates="records")


class Change(Base):
    """One change to a zone. `record_id` is no foreign key: the history outlives the record."""

    __tablename__ = "dns_change"
    __table_args__ = (one_of("action", ChangeAction), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    zone_id: Mapped[int] = mapped_column(ForeignKey("dns_zone.id", ondelete="CASCADE"), index=True)
    record_id: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(20))
    serial: Mapped[int] = mapped_column(BigInteger)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    agent: Mapped[str] = mapped_column(String(120))
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

"""The dns domain's tables: a zone (its SOA fields inline), its records, and the history of
every change, each stamped with the serial it produced."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from sqlalchemy import JSON, BigInteger, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

RecordType = Literal["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "PTR"]
ChangeAction = Literal["zone_create", "zone_update", "import", "create", "update", "delete"]


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
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

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
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

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

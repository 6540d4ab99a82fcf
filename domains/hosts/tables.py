"""The hosts domain's tables: the inventory (a host and its tags) and the history of every
probe run against the network."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

Role = Literal["web", "database", "cache", "worker", "proxy", "storage", "monitoring", "other"]
ProbeKind = Literal["tcp", "http", "scan"]


class Host(Base):
    __tablename__ = "hosts_host"
    __table_args__ = (
        one_of("role", Role),
        CheckConstraint("ssh_port BETWEEN 1 AND 65535", name="ssh_port"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(253), unique=True)
    # An IP address or a DNS name; 253 is the longest a DNS name can be.
    address: Mapped[str] = mapped_column(String(253))
    role: Mapped[str] = mapped_column(String(20), default="other")
    notes: Mapped[str] = mapped_column(Text, default="")
    ssh_port: Mapped[int] = mapped_column(Integer, default=22)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    tags: Mapped[list[HostTag]] = relationship(
        back_populates="host", cascade="all, delete-orphan", passive_deletes=True, order_by="HostTag.tag"
    )


class HostTag(Base):
    """One tag of a host; a row per tag so that lists filter by tag the same way on every
    backend (JSON containment differs between SQLite and PostgreSQL)."""

    __tablename__ = "hosts_tag"
    __table_args__ = (UniqueConstraint("host_id", "tag"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    host_id: Mapped[int] = mapped_column(ForeignKey("hosts_host.id", ondelete="CASCADE"))
    tag: Mapped[str] = mapped_column(String(40), index=True)

    host: Mapped[Host] = relationship(back_populates="tags")


class Probe(Base):
    """One probe of one port or URL, and what it found. Deleting a host keeps its history
    (host_id becomes null; `target` still says what was probed)."""

    __tablename__ = "hosts_probe"
    __table_args__ = (one_of("kind", ProbeKind), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    host_id: Mapped[int | None] = mapped_column(ForeignKey("hosts_host.id", ondelete="SET NULL"), index=True)
    kind: Mapped[str] = mapped_column(String(10))
    # The address probed, or the URL for an HTTP probe.
    target: Mapped[str] = mapped_column(String(2000))
    port: Mapped[int | None] = mapped_column(Integer)
    reachable: Mapped[bool] = mapped_column(Boolean)
    status_code: Mapped[int | None] = mapped_column(Integer)
    latency_ms: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(String(500))
    probed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)

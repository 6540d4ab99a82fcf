"""The monitoring domain's tables: checks of this machine and what it serves, the result of
every run, the alerts opened when a check goes bad, silences that mute a check for a while, and
samples of the machine's own metrics."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    and_,
)
from sqlalchemy.orm import Mapped, foreign, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

Kind = Literal["tcp", "http", "disk", "process", "file_age"]
State = Literal["ok", "warn", "critical"]
CheckState = Literal["unknown", "ok", "warn", "critical"]
Severity = Literal["warn", "critical"]
# The columns of a sample that metrics.stats summarises.
Metric = Literal["cpu_percent", "memory_percent", "memory_used_bytes", "disk_percent", "load_1", "load_5", "load_15"]


class Check(Base):
    __tablename__ = "monitoring_check"
    __table_args__ = (one_of("kind", Kind), one_of("state", CheckState), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    kind: Mapped[str] = mapped_column(String(20))
    target: Mapped[str] = mapped_column(String(500))
    warn_threshold: Mapped[float | None] = mapped_column(Float)
    critical_threshold: Mapped[float | None] = mapped_column(Float)
    interval_seconds: Mapped[int] = mapped_column(Integer, default=60)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    # The outcome of the latest run, kept here so that status reads need no scan of results.
    state: Mapped[str] = mapped_column(String(20), default="unknown")
    state_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_value: Mapped[float | None] = mapped_column(Float)
    last_checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    silences: Mapped[list[Silence]] = relationship(
        back_populates="check", cascade="all, delete-orphan", passive_deletes=True, order_by="Silence.id"
    )
    open_alerts: Mapped[list[Alert]] = relationship(
        primaryjoin=lambda: and_(foreign(Alert.check_id) == Check.id, Alert.closed_at.is_(None)),
        viewonly=True,
        order_by="Alert.id",
    )


class Result(Base):
    """One run of a check: what was measured, against which thresholds, and the verdict."""

    __tablename__ = "monitoring_result"
    __table_args__ = (
        one_of("state", State),
        Index("ix_monitoring_result_check_id_checked_at", "check_id", "checked_at"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[int] = mapped_column(ForeignKey("monitoring_check.id", ondelete="CASCADE"))
    checked_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    state: Mapped[str] = mapped_column(String(20))
    value: Mapped[float | None] = mapped_column(Float)  # None when the target could not be measured
    unit: Mapped[str] = mapped_column(String(20))
    warn_threshold: Mapped[float | None] = mapped_column(Float)
    critical_threshold: Mapped[float | None] = mapped_column(Float)
    duration_ms: Mapped[float] = mapped_column(Float)
    message: Mapped[str] = mapped_column(Text)
    silenced: Mapped[bool] = mapped_column(Boolean, default=False)


class Alert(Base):
    """Opened when a check leaves ok, its severity following the check; closed when it recovers."""

    __tablename__ = "monitoring_alert"
    __table_args__ = (one_of("severity", Severity), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[int] = mapped_column(ForeignKey("monitoring_check.id", ondelete="CASCADE"), index=True)
    severity: Mapped[str] = mapped_column(String(20))
    message: Mapped[str] = mapped_column(Text)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    acknowledged_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    acknowledged_by: Mapped[str | None] = mapped_column(String(120))
    note: Mapped[str] = mapped_column(Text, default="")


class Silence(Base):
    """A check muted from `starts_at` to `ends_at`: it still runs, but opens no alerts."""

    __tablename__ = "monitoring_silence"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[int] = mapped_column(ForeignKey("monitoring_check.id", ondelete="CASCADE"), index=True)
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    reason: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = created_column()

    check: Mapped[Check] = relationship(back_populates="silences")


class Sample(Base):
    """This machine's metrics at one moment, taken on demand."""

    __tablename__ = "monitoring_sample"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    taken_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    cpu_percent: Mapped[float] = mapped_column(Float)
    memory_percent: Mapped[float] = mapped_column(Float)
    memory_used_bytes: Mapped[int] = mapped_column(BigInteger)
    disk_path: Mapped[str] = mapped_column(String(500))
    disk_percent: Mapped[float] = mapped_column(Float)
    load_1: Mapped[float] = mapped_column(Float)
    load_5: Mapped[float] = mapped_column(Float)
    load_15: Mapped[float] = mapped_column(Float)

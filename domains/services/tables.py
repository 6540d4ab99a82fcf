"""The services domain's tables: a service definition (with the process this domain last started
for it) and the history of starts and stops."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

EventKind = Literal["started", "stopped", "killed", "exited"]


class Service(Base):
    """A service definition. `pid` and `pid_created` name the process this domain started for
    it: a pid alone is reused by the OS, the pair identifies one process for its whole life."""

    __tablename__ = "services_service"
    __table_args__ = (
        CheckConstraint("port IS NULL OR (port >= 1 AND port <= 65535)", name="port"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    command: Mapped[str] = mapped_column(Text)
    working_dir: Mapped[str] = mapped_column(String(255), default="")
    port: Mapped[int | None] = mapped_column(Integer)
    health_url: Mapped[str | None] = mapped_column(String(500))
    log_file: Mapped[str] = mapped_column(String(255))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    pid: Mapped[int | None] = mapped_column(Integer)
    # The process's start time as the OS reports it (epoch seconds), not a point in time we
    # display: it is compared with psutil's value to recognise the process, so it stays a float.
    pid_created: Mapped[float | None] = mapped_column(Float)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    # Targets by module path: every domain shares one declarative registry, where a bare class
    # name (another domain's "Event") can be ambiguous.
    events: Mapped[list[ServiceEvent]] = relationship(
        f"{__name__}.ServiceEvent",
        back_populates="service",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=f"{__name__}.ServiceEvent.id",
    )


class ServiceEvent(Base):
    """One start or stop of a service, as this domain saw it."""

    __tablename__ = "services_event"
    __table_args__ = (
        one_of("kind", EventKind),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    service_id: Mapped[int] = mapped_column(ForeignKey("services_service.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    pid: Mapped[int | None] = mapped_column(Integer)
    exit_code: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    service: Mapped[Service] = relationship(f"{__name__}.Service", back_populates="events")

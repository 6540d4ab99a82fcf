"""The calendar domain's tables: calendars hold events; a recurring event (a series) holds its
cancelled occurrences (EXDATEs) and its changed occurrences (override events pointing back at
it); attendees and reminders belong to an event. Every instant is stored in UTC; an event
keeps the IANA zone it was planned in, so that a weekly 09:30 stays 09:30 across DST."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column

ShowAs = Literal["busy", "free"]
Rsvp = Literal["needs_action", "accepted", "tentative", "declined"]
ReminderMethod = Literal["display", "email"]


class Calendar(Base):
    __tablename__ = "calendar_calendar"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    color: Mapped[str | None] = mapped_column(String(7))
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    # Whose time this calendar books: their free/busy includes every busy event in it.
    owner_email: Mapped[str | None] = mapped_column(String(320), index=True)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Event(Base):
    """A single event, a series (with `rrule`), or one changed occurrence of a series (with
    `series_id` and `recurrence_id`, the original start it replaces). All-day events run from
    local midnight to local midnight in `timezone`; `end_at` is exclusive."""

    __tablename__ = "calendar_event"
    __table_args__ = (UniqueConstraint("series_id", "recurrence_id"), one_of("show_as", ShowAs), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    calendar_id: Mapped[int] = mapped_column(ForeignKey("calendar_calendar.id", ondelete="CASCADE"), index=True)
    # The unique (series_id, recurrence_id) constraint's index serves lookups by series.
    series_id: Mapped[int | None] = mapped_column(ForeignKey("calendar_event.id", ondelete="CASCADE"))
    recurrence_id: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # iCalendar UID of a single event or a series; overrides share their series' UID.
    uid: Mapped[str | None] = mapped_column(String(255), unique=True)
    title: Mapped[str] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text, default="")
    location: Mapped[str] = mapped_column(String(300), default="")
    start_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    end_at: Mapped[datetime] = mapped_column(UTCDateTime)
    all_day: Mapped[bool] = mapped_column(Boolean, default=False)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    rrule: Mapped[str | None] = mapped_column(String(500))
    show_as: Mapped[str] = mapped_column(String(4), default="busy")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    calendar: Mapped[Calendar] = relationship(lazy="joined")
    series: Mapped[Event | None] = relationship(remote_side=[id], back_populates="overrides")
    # The database cascades deletes (ON DELETE CASCADE); passive_deletes spares loading children.
    overrides: Mapped[list[Event]] = relationship(
        back_populates="series", cascade="all, delete-orphan", passive_deletes=True, order_by="Event.recurrence_id"
    )
    exdates: Mapped[list[Exdate]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="Exdate.original_start"
    )
    attendees: Mapped[list[Attendee]] = relationship(
        back_populates="event", cascade="all, delete-orphan", passive_deletes=True, order_by="Attendee.id"
    )
    reminders: Mapped[list[Reminder]] = relationship(
        back_populates="event", cascade="all, delete-orphan", passive_deletes=True, order_by="Reminder.id"
    )


class Exdate(Base):
    """A cancelled occurrence of a series, by its original start."""

    __tablename__ = "calendar_exdate"
    __table_args__ = (UniqueConstraint("event_id", "original_start"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("calendar_event.id", ondelete="CASCADE"))
    original_start: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()


class Attendee(Base):
    """Someone invited to an event (to every occurrence of a series); invited at most once."""

    __tablename__ = "calendar_attendee"
    __table_args__ = (UniqueConstraint("event_id", "email"), one_of("rsvp", Rsvp), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("calendar_event.id", ondelete="CASCADE"))
    email: Mapped[str] = mapped_column(String(320))
    name: Mapped[str] = mapped_column(String(120), default="")
    rsvp: Mapped[str] = mapped_column(String(12), default="needs_action")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    event: Mapped[Event] = relationship(back_populates="attendees")


class Reminder(Base):
    __tablename__ = "calendar_reminder"
    __table_args__ = (
        one_of("method", ReminderMethod),
        CheckConstraint("minutes_before >= 0", name="minutes_before"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("calendar_event.id", ondelete="CASCADE"), index=True)
    minutes_before: Mapped[int] = mapped_column(Integer)
    method: Mapped[str] = mapped_column(String(8), default="display")
    created_at: Mapped[datetime] = created_column()

    event: Mapped[Event] = relationship(back_populates="reminders")

"""The facade's own tables (the domains keep theirs): the audit log of operator decisions, and
the card ids issued, which the log names."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from facade.kit.db import NO_ID_REUSE, Base, UTCDateTime, utcnow


class AuditEntry(Base):
    """One decision or change that an operator, an agent or the clock made: who, when, what, why.

    Cards and elevations are ephemeral by design; the record of what was decided is not.
    """

    __tablename__ = "facade_audit"
    __table_args__ = NO_ID_REUSE

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(120))
    action: Mapped[str] = mapped_column(String(40))
    card_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    agent: Mapped[str | None] = mapped_column(String(120), nullable=True)
    conversation: Mapped[str | None] = mapped_column(String(200), nullable=True)
    subject: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text, default="")


class IssuedCardId(Base):
    """One card id, issued once. The key only grows — SQLite AUTOINCREMENT, a PostgreSQL
    sequence — and lives in the same database as the audit log that names the ids, so that
    neither Redis losing its data nor a restart of a server holding cards in memory issues an
    id again. Ids stay small whole numbers, typeable as `facade cards approve 42`.
    """

    __tablename__ = "facade_card_ids"
    __table_args__ = NO_ID_REUSE

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

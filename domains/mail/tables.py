"""The mail domain's tables: folders hold messages; messages group into threads and carry labels;
contacts and stored filter rules stand beside them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

FolderRole = Literal["inbox", "sent", "drafts", "archive", "trash", "custom"]
SYSTEM_ROLES: tuple[str, ...] = ("inbox", "sent", "drafts", "archive", "trash")


class Folder(Base):
    """A mailbox folder; the five system folders have a role, the others are `custom`."""

    __tablename__ = "mail_folder"
    __table_args__ = (one_of("role", FolderRole), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    role: Mapped[str] = mapped_column(String(10), default="custom")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Thread(Base):
    """A conversation: messages linked by References/In-Reply-To, else by normalised subject."""

    __tablename__ = "mail_thread"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    subject: Mapped[str] = mapped_column(String(500), default="")
    subject_key: Mapped[str] = mapped_column(String(500), default="", index=True)
    created_at: Mapped[datetime] = created_column()


class Label(Base):
    __tablename__ = "mail_label"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(60), unique=True)
    color: Mapped[str | None] = mapped_column(String(7))
    created_at: Mapped[datetime] = created_column()


class MessageLabel(Base):
    """A label on a message; a message carries a label at most once."""

    __tablename__ = "mail_message_label"
    __table_args__ = (UniqueConstraint("message_id", "label_id"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("mail_message.id", ondelete="CASCADE"))
    label_id: Mapped[int] = mapped_column(ForeignKey("mail_label.id", ondelete="CASCADE"), index=True)


class Message(Base):
    """A stored message. Addresses are RFC 5322 lists ("Name <a@b>, c@d"); a message in the
    Drafts folder is a draft, and its Message-ID is the one it will be sent with."""

    __tablename__ = "mail_message"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # A folder with messages cannot vanish underneath them: deleting one moves them to Trash first.
    folder_id: Mapped[int] = mapped_column(ForeignKey("mail_folder.id"), index=True)
    thread_id: Mapped[int] = mapped_column(ForeignKey("mail_thread.id", ondelete="CASCADE"), index=True)
    message_id: Mapped[str] = mapped_column(String(255), index=True)
    in_reply_to: Mapped[str | None] = mapped_column(String(255))
    reference_ids: Mapped[str] = mapped_column(Text, default="")
    from_addr: Mapped[str] = mapped_column(String(320))
    to_addrs: Mapped[str] = mapped_column(Text, default="")
    cc_addrs: Mapped[str] = mapped_column(Text, default="")
    bcc_addrs: Mapped[str] = mapped_column(Text, default="")
    subject: Mapped[str] = mapped_column(String(500), default="")
    body: Mapped[str] = mapped_column(Text, default="")
    headers: Mapped[str] = mapped_column(Text, default="")
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    is_read: Mapped[bool] = mapped_column(Boolean, default=False)
    is_flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    folder: Mapped[Folder] = relationship(lazy="joined")
    thread: Mapped[Thread] = relationship()
    labels: Mapped[list[Label]] = relationship(secondary="mail_message_label", order_by=Label.id)


class Contact(Base):
    __tablename__ = "mail_contact"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(320), unique=True)
    notes: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Rule(Base):
    """A stored filter: conditions (substrings, all must match) and actions, applied on demand.
    The folder and label it points at cannot be deleted while it does."""

    __tablename__ = "mail_rule"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    from_contains: Mapped[str | None] = mapped_column(String(200))
    subject_contains: Mapped[str | None] = mapped_column(String(200))
    body_contains: Mapped[str | None] = mapped_column(String(200))
    move_to_folder_id: Mapped[int | None] = mapped_column(ForeignKey("mail_folder.id"), index=True)
    add_label_id: Mapped[int | None] = mapped_column(ForeignKey("mail_label.id"), index=True)
    mark_read: Mapped[bool] = mapped_column(Boolean, default=False)
    flag: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

"""The arguments of every mail capability. Field names say what they hold; a description is
given only where the name alone does not. `message_id` is always the store's integer id; the
RFC 5322 Message-ID header is called `internet_message_id` in results."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from facade.kit import Id, Input, Page

Name = Annotated[str, Field(min_length=1, max_length=100)]
Address = Annotated[str, Field(min_length=3, max_length=320)]
Addresses = Annotated[list[Address], Field(max_length=50)]
Email = Annotated[str, Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
Subject = Annotated[str, Field(max_length=500)]
Body = Annotated[str, Field(max_length=100_000)]
Needle = Annotated[str, Field(min_length=1, max_length=200)]
MessageIds = Annotated[list[Id], Field(min_length=1, max_length=200)]
Color = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]
DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _date_if_bare(value: Any) -> Any:
    """"2026-11-28" is a whole day, not its midnight: `until` then includes that day."""
    return date.fromisoformat(value.strip()) if isinstance(value, str) and DATE_ONLY.match(value.strip()) else value


When = Annotated[datetime | date, BeforeValidator(_date_if_bare)]

# Folders, labels, contacts


class FolderCreate(Input):
    name: Name


class FolderUpdate(Input):
    folder_id: Id
    name: Name


class FolderRef(Input):
    folder_id: Id


class LabelCreate(Input):
    name: Annotated[str, Field(min_length=1, max_length=60)]
    color: Color | None = None


class ContactCreate(Input):
    name: Annotated[str, Field(min_length=1, max_length=120)]
    email: Email
    notes: Annotated[str, Field(max_length=2000)] = ""


class ContactUpdate(Input):
    contact_id: Id
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    email: Email | None = None
    notes: Annotated[str, Field(max_length=2000)] | None = None


class ContactFilter(Page):
    query: Needle | None = Field(None, description="Part of a name or address.")


# Messages and threads


class MessageFilter(Page):
    folder_id: Id | None = Field(None, description="Default: the Inbox.")
    label_id: Id | None = None
    thread_id: Id | None = None
    unread: bool | None = Field(None, description="true: unread only; false: read only.")
    flagged: bool | None = None


class MessageSearch(Page):
    query: Needle | None = Field(None, description="Found in the sender, recipients, subject or body.")
    from_contains: Needle | None = None
    to_contains: Needle | None = None
    subject_contains: Needle | None = None
    body_contains: Needle | None = None
    since: When | None = Field(None, description="Received at or after; a date means its start, in UTC.")
    until: When | None = Field(None, description="Received before; a date means the end of that day, in UTC.")
    unread: bool | None = None
    flagged: bool | None = None
    folder_id: Id | None = None
    label_id: Id | None = None
    include_trash: bool = False


class MessageUpdate(Input):
    message_id: Id
    is_read: bool | None = None
    is_flagged: bool | None = None


class MessageMove(Input):
    message_id: Id
    folder_id: Id


class MessageDelete(Input):
    message_id: Id
    permanent: bool = Field(False, description="Delete now instead of moving to Trash.")


class MessageLabel(Input):
    message_id: Id
    label_id: Id


class MessageRef(Input):
    message_id: Id


class ThreadFilter(Page):
    folder_id: Id | None = Field(None, description="Threads with a message in this folder.")
    unread_only: bool = False


class ThreadRef(Input):
    thread_id: Id


# Drafts, replies, sending


class DraftCreate(Input):
    to: Addresses = Field(default_factory=list, description='"a@example.com" or "Name <a@example.com>".')
    cc: Addresses = Field(default_factory=list)
    bcc: Addresses = Field(default_factory=list)
    subject: Subject = ""
    body: Body = ""


class DraftUpdate(Input):
    message_id: Id
    to: Addresses | None = Field(None, description="Replaces the list.")
    cc: Addresses | None = None
    bcc: Addresses | None = None
    subject: Subject | None = None
    body: Body | None = None


class Reply(Input):
    message_id: Id
    body: Body
    reply_all: bool = False


class Forward(Input):
    message_id: Id
    to: Annotated[list[Address], Field(min_length=1, max_length=50)]
    cc: Addresses = Field(default_factory=list)
    body: Body = Field("", description="A note above the forwarded message.")


# Full tier


class BulkMove(Input):
    message_ids: MessageIds
    folder_id: Id


class BulkMark(Input):
    message_ids: MessageIds
    is_read: bool | None = None
    is_flagged: bool | None = None


class BulkDelete(Input):
    message_ids: MessageIds
    permanent: bool = Field(False, description="Delete now instead of moving to Trash.")


class BulkSend(Input):
    subject: Annotated[str, Field(min_length=1, max_length=500)]
    body: Annotated[str, Field(min_length=1, max_length=100_000)] = Field(
        description="{name} becomes each recipient's name."
    )
    contact_ids: Annotated[list[Id], Field(max_length=100)] = Field(default_factory=list)
    addresses: Annotated[list[Address], Field(max_length=100)] = Field(default_factory=list)


class FolderExport(Page):
    folder_id: Id


class MessageImport(Input):
    eml: Annotated[str, Field(min_length=1, max_length=2_000_000)] = Field(description="The RFC 5322 text.")
    folder_id: Id | None = Field(None, description="Default: the Inbox.")


class Stats(Input):
    pass


class RuleCreate(Input):
    name: Name
    from_contains: Needle | None = None
    subject_contains: Needle | None = None
    body_contains: Needle | None = None
    move_to_folder_id: Id | None = None
    add_label_id: Id | None = None
    mark_read: bool = False
    flag: bool = False
    enabled: bool = True


class RuleApply(Input):
    folder_id: Id | None = Field(None, description="Default: the Inbox.")
    rule_id: Id | None = Field(None, description="Default: every enabled rule, in id order.")

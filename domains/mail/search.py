"""Which messages a list or a search means, as SQL conditions; substring matches are
case-insensitive and take `%` and `_` literally."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import ColumnElement, or_, select

from domains.mail.inputs import MessageFilter, MessageSearch
from domains.mail.tables import Folder, Message, MessageLabel
from facade.kit import contains_text


def _instant(value: datetime | date, end_of_day: bool) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    start = datetime.combine(value, time(0), UTC)
    return start + timedelta(days=1) if end_of_day else start


def _flags(unread: bool | None, flagged: bool | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if unread is not None:
        conditions.append(Message.is_read == (not unread))
    if flagged is not None:
        conditions.append(Message.is_flagged == flagged)
    return conditions


def listing(args: MessageFilter, folder_id: int | None) -> list[ColumnElement[bool]]:
    conditions = _flags(args.unread, args.flagged)
    if folder_id is not None:
        conditions.append(Message.folder_id == folder_id)
    if args.label_id is not None:
        conditions.append(Message.id.in_(select(MessageLabel.message_id).where(MessageLabel.label_id == args.label_id)))
    if args.thread_id is not None:
        conditions.append(Message.thread_id == args.thread_id)
    return conditions


def matching(args: MessageSearch) -> list[ColumnElement[bool]]:
    conditions = _flags(args.unread, args.flagged)
    if args.query:
        columns = (Message.from_addr, Message.to_addrs, Message.cc_addrs, Message.subject, Message.body)
        conditions.append(or_(*(contains_text(c, args.query) for c in columns)))
    for column, needle in (
        (Message.from_addr, args.from_contains),
        (Message.subject, args.subject_contains),
        (Message.body, args.body_contains),
    ):
        if needle:
            conditions.append(contains_text(column, needle))
    if args.to_contains:
        needle = args.to_contains
        conditions.append(or_(contains_text(Message.to_addrs, needle), contains_text(Message.cc_addrs, needle)))
    if args.since is not None:
        conditions.append(Message.received_at >= _instant(args.since, end_of_day=False))
    if args.until is not None:
        conditions.append(Message.received_at < _instant(args.until, end_of_day=True))
    if args.folder_id is not None:
        conditions.append(Message.folder_id == args.folder_id)
    elif not args.include_trash:
        conditions.append(Message.folder_id.not_in(select(Folder.id).where(Folder.role == "trash")))
    if args.label_id is not None:
        conditions.append(Message.id.in_(select(MessageLabel.message_id).where(MessageLabel.label_id == args.label_id)))
    return conditions

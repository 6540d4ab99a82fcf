"""Reading and filing messages, and reading threads."""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import selectinload

from domains.mail import checks, inputs, search, serialize
from domains.mail.entities import FOLDER, LABEL, MESSAGE, THREAD, system_folder
from domains.mail.tables import Folder, Message, Thread
from facade.kit import CallContext, NotFound, Toolset, records

tools = Toolset()

Result = dict[str, Any]


def _page(ctx: CallContext, conditions: list[Any], limit: int, offset: int) -> Result:
    """Messages matching `conditions`, newest first."""
    total = ctx.db.scalar(select(func.count()).select_from(Message).where(*conditions))
    rows = ctx.db.scalars(
        select(Message)
        .where(*conditions)
        .options(selectinload(Message.labels))
        .order_by(Message.received_at.desc(), Message.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return {"messages": [serialize.summary(m) for m in rows], "total": total}


@tools.capability("message_list", read_only=True, example={"folder_id": 1})
def message_list(ctx: CallContext, args: inputs.MessageFilter) -> Result:
    """List the messages of a folder, newest first, optionally filtered."""
    if args.thread_id is not None:
        THREAD.fetch(ctx.db, args.thread_id)
    if args.label_id is not None:
        LABEL.fetch(ctx.db, args.label_id)
    # A thread spans folders: filtering by thread alone means the whole thread.
    if args.folder_id is not None:
        folder_id: int | None = FOLDER.fetch(ctx.db, args.folder_id).id
    elif args.thread_id is None and args.label_id is None:
        folder_id = system_folder(ctx.db, "inbox").id
    else:
        folder_id = None
    return _page(ctx, search.listing(args, folder_id), args.limit, args.offset)


records.add_get(tools, MESSAGE, example_id=3)


@tools.capability("message_search", read_only=True, example={"query": "budget", "since": "2026-11-01"})
def message_search(ctx: CallContext, args: inputs.MessageSearch) -> Result:
    """Search messages by sender, recipient, subject, body, date range and flags."""
    if args.folder_id is not None:
        FOLDER.fetch(ctx.db, args.folder_id)
    if args.label_id is not None:
        LABEL.fetch(ctx.db, args.label_id)
    return _page(ctx, search.matching(args), args.limit, args.offset)


records.add_update(
    tools,
    MESSAGE,
    inputs.MessageUpdate,
    example={"message_id": 4, "is_read": True},
    description="Mark a message read or unread, flagged or not.",
)


@tools.capability("message_move", idempotent=True, example={"message_id": 1, "folder_id": 4})
def message_move(ctx: CallContext, args: inputs.MessageMove) -> Result:
    """File a message in another folder."""
    message = MESSAGE.fetch(ctx.db, args.message_id)
    changed = checks.move(ctx.db, message, FOLDER.fetch(ctx.db, args.folder_id))
    ctx.db.flush()
    return {"message": serialize.summary(message), "changed": changed}


@tools.capability("message_label_add", idempotent=True, example={"message_id": 5, "label_id": 1})
def message_label_add(ctx: CallContext, args: inputs.MessageLabel) -> Result:
    """Put a label on a message."""
    message = MESSAGE.fetch(ctx.db, args.message_id)
    label = LABEL.fetch(ctx.db, args.label_id)
    changed = label not in message.labels
    if changed:
        message.labels.append(label)
        ctx.db.flush()
    return {"message": serialize.summary(message), "changed": changed}


@tools.capability("message_label_remove", idempotent=True, example={"message_id": 3, "label_id": 1})
def message_label_remove(ctx: CallContext, args: inputs.MessageLabel) -> Result:
    """Take a label off a message."""
    message = MESSAGE.fetch(ctx.db, args.message_id)
    label = LABEL.fetch(ctx.db, args.label_id)
    if label not in message.labels:
        raise NotFound(
            f"message {message.id} does not carry label {label.id} ({label.name}); its labels are "
            f"{[lab.name for lab in message.labels]}"
        )
    message.labels.remove(label)
    ctx.db.flush()
    return {"message": serialize.summary(message)}


@tools.capability("message_delete", destructive=True, example={"message_id": 9})
def message_delete(ctx: CallContext, args: inputs.MessageDelete) -> Result:
    """Move a message to Trash, or delete it for good if it already is there."""
    return checks.remove(ctx.db, MESSAGE.fetch(ctx.db, args.message_id), args.permanent)


# Threads


@tools.capability("thread_list", read_only=True, example={})
def thread_list(ctx: CallContext, args: inputs.ThreadFilter) -> Result:
    """List conversations, most recent activity first, without what is in Trash."""
    trash = select(Folder.id).where(Folder.role == "trash").scalar_subquery()
    unread = func.sum(case((Message.is_read.is_(False), 1), else_=0))
    last = func.max(Message.received_at)
    query = (
        select(Thread.id, Thread.subject, func.count(Message.id), unread, last)
        .join(Message, Message.thread_id == Thread.id)
        .where(Message.folder_id != trash)
        .group_by(Thread.id, Thread.subject)
    )
    if args.folder_id is not None:
        FOLDER.fetch(ctx.db, args.folder_id)
        query = query.having(func.sum(case((Message.folder_id == args.folder_id, 1), else_=0)) > 0)
    if args.unread_only:
        query = query.having(unread > 0)
    total = ctx.db.scalar(select(func.count()).select_from(query.subquery()))
    rows = ctx.db.execute(query.order_by(last.desc(), Thread.id.desc()).limit(args.limit).offset(args.offset)).all()
    threads = [
        {"id": i, "subject": s, "messages": n, "unread": int(u or 0), "last_activity": serialize.iso(t)}
        for i, s, n, u, t in rows
    ]
    return {"threads": threads, "total": total}


@tools.capability("thread_get", read_only=True, example={"thread_id": 1})
def thread_get(ctx: CallContext, args: inputs.ThreadRef) -> Result:
    """Get a conversation with all its messages, oldest first."""
    thread = THREAD.fetch(ctx.db, args.thread_id)
    rows = ctx.db.scalars(
        select(Message)
        .where(Message.thread_id == thread.id)
        .options(selectinload(Message.labels))
        .order_by(Message.received_at, Message.id)
    ).all()
    return {"thread": {"id": thread.id, "subject": thread.subject}, "messages": [serialize.message(m) for m in rows]}

"""Messages in and out as files: .eml for one message, mbox (mboxrd) for a thread or a folder,
.eml import, and the raw header dump."""

from __future__ import annotations

import re
from datetime import UTC
from email import policy
from typing import Any

from sqlalchemy import func, select

from domains.mail import addresses, checks, compose, inputs, serialize, threads
from domains.mail.entities import FOLDER, MESSAGE, THREAD
from domains.mail.tables import Message
from facade.kit import CallContext, Conflict, Toolset, utcnow

tools = Toolset()

Result = dict[str, Any]
UNIX_LINES = policy.default.clone(linesep="\n")
FROM_LINE = re.compile(r"^(>*From )", re.MULTILINE)


def eml(m: Message) -> str:
    return compose.to_email(m).as_string(policy=UNIX_LINES)


def mbox(messages: list[Message]) -> str:
    """mboxrd: each message after a `From ` envelope line, body lines starting with `>*From `
    quoted once more, so that any reader splits the file where it was joined."""
    parts: list[str] = []
    for m in messages:
        envelope = addresses.email_of(m.from_addr) or "MAILER-DAEMON"
        stamp = m.received_at.astimezone(UTC).strftime("%a %b %d %H:%M:%S %Y")
        text = FROM_LINE.sub(r">\1", eml(m))
        parts.append(f"From {envelope} {stamp}\n{text.rstrip(chr(10))}\n\n")
    return "".join(parts)


@tools.capability("message_export", read_only=True, example={"message_id": 3})
def message_export(ctx: CallContext, args: inputs.MessageRef) -> Result:
    """Export one message as .eml text."""
    message = MESSAGE.fetch(ctx.db, args.message_id)
    return {"filename": f"message-{message.id}.eml", "content_type": "message/rfc822", "content": eml(message)}


@tools.capability("thread_export", read_only=True, example={"thread_id": 1})
def thread_export(ctx: CallContext, args: inputs.ThreadRef) -> Result:
    """Export a conversation as mbox text, oldest message first."""
    thread = THREAD.fetch(ctx.db, args.thread_id)
    rows = list(ctx.db.scalars(select(Message).where(Message.thread_id == thread.id).order_by(Message.received_at)))
    return {"filename": f"thread-{thread.id}.mbox", "messages": len(rows), "content": mbox(rows)}


@tools.capability("folder_export", read_only=True, example={"folder_id": 1})
def folder_export(ctx: CallContext, args: inputs.FolderExport) -> Result:
    """Export a page of a folder's messages as mbox text, oldest first."""
    folder = FOLDER.fetch(ctx.db, args.folder_id)
    total = ctx.db.scalar(select(func.count()).where(Message.folder_id == folder.id))
    rows = list(
        ctx.db.scalars(
            select(Message)
            .where(Message.folder_id == folder.id)
            .order_by(Message.received_at, Message.id)
            .limit(args.limit)
            .offset(args.offset)
        )
    )
    return {
        "filename": f"{re.sub(r'[^A-Za-z0-9_-]+', '-', folder.name).strip('-') or 'folder'}.mbox",
        "messages": len(rows),
        "total": total,
        "content": mbox(rows),
    }


SAMPLE_EML = (
    "From: Corner Books <receipts@cornerbooks.example>\n"
    "To: Sam Rivera <sam@example.com>\n"
    "Subject: Your receipt #10519\n"
    "Date: Mon, 30 Nov 2026 16:05:00 +0100\n"
    "Message-ID: <r10519@cornerbooks.example>\n"
    "Content-Type: text/plain; charset=utf-8\n"
    "\n"
    "Thank you for your order.\n\n1 x The Mythical Man-Month   EUR 32.00\nTotal            EUR 32.00\n"
)


@tools.capability("message_import", example={"eml": SAMPLE_EML})
def message_import(ctx: CallContext, args: inputs.MessageImport) -> Result:
    """Store an .eml message in a folder, threaded with the mail it answers."""
    folder = checks.folder_for_filing(ctx.db, args.folder_id)
    parsed = compose.parse_eml(args.eml)
    if parsed.message_id is not None:
        clash = ctx.db.scalar(
            select(Message.id).where(Message.folder_id == folder.id, Message.message_id == parsed.message_id)
        )
        if clash is not None:
            raise Conflict(
                f"message {clash} in {folder.name} already has Message-ID {parsed.message_id}; it was imported before"
            )
    message = Message(
        folder=folder,
        thread=threads.assign(ctx.db, parsed.subject, parsed.in_reply_to, parsed.reference_ids),
        message_id=parsed.message_id or compose.new_message_id(parsed.from_addr),
        in_reply_to=parsed.in_reply_to,
        reference_ids=parsed.reference_ids,
        from_addr=parsed.from_addr,
        to_addrs=parsed.to_addrs,
        cc_addrs=parsed.cc_addrs,
        subject=parsed.subject,
        body=parsed.body,
        headers=parsed.headers,
        received_at=parsed.received_at or utcnow(),
        is_read=False,
    )
    ctx.db.add(message)
    ctx.db.flush()
    return {"message": serialize.summary(message), "attachments_skipped": parsed.attachments}


@tools.capability("message_raw_headers", read_only=True, example={"message_id": 4})
def message_raw_headers(ctx: CallContext, args: inputs.MessageRef) -> Result:
    """Dump every header of a message as received or sent."""
    message = MESSAGE.fetch(ctx.db, args.message_id)
    # A draft has no wire headers yet: show the ones it would be sent with.
    text = message.headers or compose.header_text(compose.to_email(message))
    return {
        "message_id": message.id,
        "as_sent_or_received": bool(message.headers),
        "headers": [{"name": n, "value": v} for n, v in compose.header_pairs(text)],
    }

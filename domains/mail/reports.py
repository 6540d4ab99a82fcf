"""Mailbox statistics: counts per folder and label, the busiest senders, the date range held."""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, func, select

from domains.mail import addresses, inputs, serialize
from domains.mail.tables import Folder, Label, Message, MessageLabel
from facade.kit import CallContext, Toolset

tools = Toolset()

Result = dict[str, Any]
TOP_SENDERS = 5


@tools.capability("mailbox_stats", read_only=True, example={})
def mailbox_stats(ctx: CallContext, args: inputs.Stats) -> Result:
    """Count messages per folder and label, unread and flagged mail, threads and top senders."""
    db = ctx.db
    unread = func.sum(case((Message.is_read.is_(False), 1), else_=0))
    flagged = func.sum(case((Message.is_flagged.is_(True), 1), else_=0))
    size = func.sum(func.length(Message.body))
    folders = db.execute(
        select(Folder.id, Folder.name, Folder.role, func.count(Message.id), unread, flagged, size)
        .outerjoin(Message, Message.folder_id == Folder.id)
        .group_by(Folder.id, Folder.name, Folder.role)
        .order_by(Folder.id)
    ).all()
    labels = db.execute(
        select(Label.id, Label.name, func.count(MessageLabel.id))
        .outerjoin(MessageLabel, MessageLabel.label_id == Label.id)
        .group_by(Label.id, Label.name)
        .order_by(Label.id)
    ).all()
    # Received mail only: the owner would top the list of senders of their own Sent folder.
    incoming = select(Message.from_addr).join(Folder).where(Folder.role.not_in(("sent", "drafts")))
    senders: dict[str, int] = {}
    for (from_addr,) in db.execute(incoming):
        key = addresses.email_of(from_addr)
        senders[key] = senders.get(key, 0) + 1
    first, last = db.execute(select(func.min(Message.received_at), func.max(Message.received_at))).one()
    return {
        "messages": sum(row[3] for row in folders),
        "unread": sum(int(row[4] or 0) for row in folders),
        "flagged": sum(int(row[5] or 0) for row in folders),
        "threads": db.scalar(select(func.count(func.distinct(Message.thread_id)))) or 0,
        "folders": [
            {"id": i, "name": n, "role": r, "messages": c, "unread": int(u or 0), "flagged": int(f or 0),
             "body_chars": int(s or 0)}
            for i, n, r, c, u, f, s in folders
        ],
        "labels": [{"id": i, "name": n, "messages": c} for i, n, c in labels],
        "top_senders": [
            {"address": a, "messages": c}
            for a, c in sorted(senders.items(), key=lambda item: (-item[1], item[0]))[:TOP_SENDERS]
        ],
        "oldest": serialize.iso(first),
        "newest": serialize.iso(last),
    }

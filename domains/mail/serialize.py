"""Records as JSON-friendly dicts: ids, plain strings, address lists and ISO timestamps."""

from __future__ import annotations

from typing import Any

from domains.mail import addresses
from domains.mail.tables import Contact, Folder, Label, Message, Rule
from facade.kit import iso

SNIPPET = 140


def snippet(text: str, width: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def folder(f: Folder, total: int | None = None, unread: int | None = None) -> dict[str, Any]:
    shown: dict[str, Any] = {"id": f.id, "name": f.name, "role": f.role}
    if total is not None:
        shown |= {"total": total, "unread": unread or 0}
    return shown


def label(lab: Label) -> dict[str, Any]:
    return {"id": lab.id, "name": lab.name, "color": lab.color}


def contact(c: Contact) -> dict[str, Any]:
    return {"id": c.id, "name": c.name, "email": c.email, "notes": c.notes, "updated_at": iso(c.updated_at)}


def summary(m: Message) -> dict[str, Any]:
    """What a list shows of a message: enough to pick one, without its body."""
    return {
        "id": m.id,
        "folder": m.folder.name,
        "folder_id": m.folder_id,
        "thread_id": m.thread_id,
        "from": m.from_addr,
        "to": addresses.split(m.to_addrs),
        "subject": m.subject,
        "snippet": snippet(m.body),
        "received_at": iso(m.received_at),
        "is_read": m.is_read,
        "is_flagged": m.is_flagged,
        "is_draft": m.folder.role == "drafts",
        "labels": [lab.name for lab in m.labels],
    }


def message(m: Message) -> dict[str, Any]:
    """A message in full: its headers, its body and where it is filed."""
    full = summary(m)
    del full["snippet"]
    return full | {
        "cc": addresses.split(m.cc_addrs),
        "bcc": addresses.split(m.bcc_addrs),
        "internet_message_id": m.message_id,
        "in_reply_to": m.in_reply_to,
        "references": m.reference_ids.split(),
        "body": m.body,
    }


def rule(r: Rule) -> dict[str, Any]:
    conditions = {
        "from_contains": r.from_contains,
        "subject_contains": r.subject_contains,
        "body_contains": r.body_contains,
    }
    actions = {
        "move_to_folder_id": r.move_to_folder_id,
        "add_label_id": r.add_label_id,
        "mark_read": r.mark_read,
        "flag": r.flag,
    }
    return {
        "id": r.id,
        "name": r.name,
        "enabled": r.enabled,
        "conditions": {k: v for k, v in conditions.items() if v},
        "actions": {k: v for k, v in actions.items() if v},
    }

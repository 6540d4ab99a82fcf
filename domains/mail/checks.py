"""The domain's rules, each written once: system folders keep their names and cannot be
deleted, drafts live in Drafts until sent or deleted, deleting goes through Trash, names are
unique, and a folder or label a filter rule uses stays until the rule goes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from domains.mail.entities import FOLDER, MESSAGE, system_folder
from domains.mail.tables import Contact, Folder, Label, Message, MessageLabel, Rule, Thread
from facade.kit import Conflict, Forbidden, InvalidRequest


def folder_name_free(db: Session, name: str, except_id: int | None = None) -> None:
    # Case-insensitive, so that "Receipts" and "receipts" cannot both exist to confuse a reader.
    clash = db.scalar(select(Folder).where(func.lower(Folder.name) == name.lower(), Folder.id != except_id))
    if clash is not None:
        raise Conflict(f"folder {clash.id} is already named {clash.name!r}; choose another name")


def custom(folder: Folder, verb: str) -> Folder:
    """The folder, if it is not one of the five system folders."""
    if folder.role != "custom":
        raise Forbidden(
            f"folder {folder.id} ({folder.name}) is a system folder and cannot be {verb}; only custom folders can"
        )
    return folder


def not_used_by_rules(db: Session, column: Any, record_id: int, what: str) -> None:
    users = list(db.scalars(select(Rule.id).where(column == record_id).order_by(Rule.id)))
    if users:
        raise Conflict(
            f"{what} {record_id} is used by filter rules {users}; delete them first with mail.rule_delete"
        )


def draft(db: Session, message_id: int) -> Message:
    """The message, if it is a draft (it lives in Drafts)."""
    message = MESSAGE.fetch(db, message_id)
    if message.folder.role != "drafts":
        raise Conflict(
            f"message {message.id} is not a draft (it is in {message.folder.name}); reply to it with "
            "mail.message_reply or forward it with mail.message_forward"
        )
    return message


def move(db: Session, message: Message, target: Folder) -> bool:
    """File `message` in `target`; False when it already is there."""
    if target.id == message.folder_id:
        return False
    if target.role == "drafts":
        raise InvalidRequest(f"only drafts live in {target.name}; start one with mail.draft_create")
    if message.folder.role == "drafts" and target.role != "trash":
        raise Conflict(
            f"message {message.id} is a draft; send it with mail.draft_send or delete it, it cannot be filed elsewhere"
        )
    message.folder = target
    return True


def remove(db: Session, message: Message, permanent: bool) -> dict[str, Any]:
    """Move to Trash, or delete for good when asked or when it already is in Trash."""
    if permanent or message.folder.role == "trash":
        thread_id = message.thread_id
        db.delete(message)
        db.flush()
        _drop_empty_thread(db, thread_id)
        return {"message_id": message.id, "deleted_permanently": True}
    move(db, message, system_folder(db, "trash"))
    db.flush()
    return {"message_id": message.id, "moved_to_trash": True}


def _drop_empty_thread(db: Session, thread_id: int) -> None:
    if db.scalar(select(Message.id).where(Message.thread_id == thread_id).limit(1)) is None:
        db.execute(delete(Thread).where(Thread.id == thread_id))


def label_name_free(db: Session, values: dict[str, Any]) -> None:
    clash = db.scalar(select(Label).where(func.lower(Label.name) == values["name"].lower()))
    if clash is not None:
        raise Conflict(f"label {clash.id} is already named {clash.name!r}; use it or choose another name")


def on_label_delete(db: Session, label: Label) -> dict[str, Any]:
    not_used_by_rules(db, Rule.add_label_id, label.id, "label")
    count = db.scalar(select(func.count()).where(MessageLabel.label_id == label.id)) or 0
    return {"removed_from_messages": count}


def email_free(db: Session, email: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(Contact.id).where(Contact.email == email, Contact.id != except_id))
    if clash is not None:
        raise Conflict(f"contact {clash} already has the address {email}; update that contact instead")


def check_contact_create(db: Session, values: dict[str, Any]) -> None:
    email_free(db, values["email"])


def check_contact_update(db: Session, contact: Contact, changes: dict[str, Any]) -> None:
    if changes.get("email"):
        email_free(db, changes["email"], contact.id)


def delete_folder(db: Session, folder: Folder) -> dict[str, Any]:
    """Delete a custom folder; its messages go to Trash first, so nothing is lost."""
    custom(folder, "deleted")
    not_used_by_rules(db, Rule.move_to_folder_id, folder.id, "folder")
    trash = system_folder(db, "trash")
    moved = list(db.scalars(select(Message.id).where(Message.folder_id == folder.id).order_by(Message.id)))
    db.execute(update(Message).where(Message.folder_id == folder.id).values(folder_id=trash.id))
    db.delete(folder)
    db.flush()
    return {"deleted": {"folder_id": folder.id}, "moved_to_trash": moved}


def folder_for_filing(db: Session, folder_id: int | None, default_role: str = "inbox") -> Folder:
    folder = FOLDER.fetch(db, folder_id) if folder_id is not None else system_folder(db, default_role)
    if folder.role == "drafts":
        raise InvalidRequest(f"only drafts live in {folder.name}; pick the Inbox, the Archive or a custom folder")
    return folder

"""The domain's records as data (what each is called, its table, how it renders) and the
lookups every capability shares: a record by id, a system folder by role."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from domains.mail import serialize
from domains.mail.tables import Contact, Folder, Label, Message, Rule, Thread
from facade.kit import Entity, Unavailable

FOLDER: Entity[Folder] = Entity("mail", "folder", "folders", Folder, serialize.folder)
LABEL: Entity[Label] = Entity("mail", "label", "labels", Label, serialize.label)
CONTACT: Entity[Contact] = Entity("mail", "contact", "contacts", Contact, serialize.contact)
MESSAGE: Entity[Message] = Entity(
    "mail", "message", "messages", Message, serialize.message, load=(selectinload(Message.labels),)
)
RULE: Entity[Rule] = Entity("mail", "rule", "rules", Rule, serialize.rule)
THREAD: Entity[Thread] = Entity("mail", "thread", "threads", Thread)


def system_folder(db: Session, role: str) -> Folder:
    """The folder with a system role; the seed makes all five, so a missing one is a broken store."""
    found = db.scalar(select(Folder).where(Folder.role == role))
    if found is None:
        raise Unavailable(f"the {role} folder is missing from the mail store; an operator must restore it")
    return found

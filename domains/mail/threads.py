"""Threading: a message joins the thread of a message it references (In-Reply-To, References);
failing that, a reply or forward ("Re:", "Fwd:", or references to mail we never stored) joins
the newest thread with the same normalised subject. A fresh subject starts a thread: grouping
every "Hello" ever received by subject alone would merge strangers' mail."""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.mail.tables import Message, Thread

# Reply and forward markers in the languages mail clients commonly send (Re, Fwd, AW, WG, SV, VS).
PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|wg|sv|vs)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)
MSGID = re.compile(r"<[^<>\s]+>")


def clean_subject(subject: str) -> str:
    """The subject without reply/forward prefixes."""
    return PREFIX.sub("", subject).strip()


def subject_key(subject: str) -> str:
    return " ".join(clean_subject(subject).lower().split())[:500]


def message_ids(text: str | None) -> list[str]:
    """The `<id@host>` tokens of a header such as References."""
    return MSGID.findall(text or "")


def assign(db: Session, subject: str, in_reply_to: str | None, references: str) -> Thread:
    """The thread a new message with these headers belongs to, created if need be."""
    referenced = [*message_ids(in_reply_to), *reversed(message_ids(references))]
    if referenced:
        # The nearest ancestor we hold wins: In-Reply-To first, then References newest first.
        found_in = select(Message.message_id, Message.thread_id).where(Message.message_id.in_(referenced))
        rows = dict(db.execute(found_in).all())
        for ref in referenced:
            if ref in rows:
                return db.get_one(Thread, rows[ref])
    key = subject_key(subject)
    if key and (referenced or PREFIX.match(subject)):
        found = db.scalar(select(Thread).where(Thread.subject_key == key).order_by(Thread.id.desc()).limit(1))
        if found is not None:
            return found
    thread = Thread(subject=clean_subject(subject)[:500], subject_key=key)
    db.add(thread)
    db.flush()
    return thread


def references_for(parent: Message) -> str:
    """The References header of a reply to `parent` (RFC 5322 3.6.4): the parent's References,
    else its In-Reply-To, followed by the parent's own Message-ID."""
    chain = message_ids(parent.reference_ids) or message_ids(parent.in_reply_to)
    return " ".join([*chain, parent.message_id])

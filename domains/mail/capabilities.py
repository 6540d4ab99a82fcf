"""The mail domain: folders, messages, threads, labels, contacts, drafts and sending, filter
rules, import and export.

The handlers live in modules by concept and register on `domain` when imported; the import
order below is the registration order, and so the order in which every example runs against a
freshly seeded database. Sending needs an SMTP server at FACADE_MAIL_SMTP_HOST:PORT (default
127.0.0.1:8025): where none listens, `mail.draft_send` and `mail.message_bulk_send` raise
Unavailable (and change nothing); every other example succeeds.

Seeded ids (never reused): folders 1 Inbox, 2 Sent, 3 Drafts, 4 Archive, 5 Trash, 6 Receipts,
7 Newsletters; labels 1 urgent, 2 finance, 3 travel, 4 team; contacts 1-4; messages 1-12
(6 and 12 drafts, 9 in Trash, 10 in Newsletters); threads 1-9 (thread 1 = messages 1-3);
filter rules 1-2. The examples create folder 8, label 5, contact 5, drafts 13-15, imported
message 16 and rule 3.
"""

from __future__ import annotations

from pathlib import Path

from domains.mail.seed import seed
from facade.kit import Domain

domain = Domain(
    "mail",
    description="A mailbox: folders, threads, labels, contacts, drafts and sending.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# The package's __init__ imports this module first, so these modules always find `domain` bound.
from domains.mail import mailboxes, messages, drafts, exchange, filters, bulk, reports  # noqa: E402,F401,I001

__all__ = ["domain"]

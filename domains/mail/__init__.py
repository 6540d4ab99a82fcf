"""A mailbox: folders, messages, threads, labels, contacts, drafts, sending over SMTP, filter
rules, and .eml/mbox import and export.

Every example succeeds on a freshly seeded database whichever examples ran before it, but for
sending: that needs an SMTP server at FACADE_MAIL_SMTP_HOST:PORT (default 127.0.0.1:8025), and
where none listens `mail.draft_send` and `mail.message_bulk_send` raise Unavailable (and change
nothing). Seeded ids (never reused): folders 1 Inbox, 2 Sent, 3 Drafts, 4 Archive, 5 Trash,
6 Receipts, 7 Newsletters; labels 1 urgent, 2 finance, 3 travel, 4 team; contacts 1-4; messages
1-12 (6 and 12 drafts: 6 is the one sent, 12 the one edited; 9 in Trash, 10 in Newsletters);
threads 1-9 (thread 1 = messages 1-3); filter rules 1-2. Each example that changes or deletes
a record targets one no other example changes or deletes.
"""

from pathlib import Path

from domains.mail import bulk, drafts, exchange, filters, mailboxes, messages, reports
from domains.mail.seed import seed
from domains.mail.settings import MailSettings
from facade.kit import Domain

domain = Domain(
    "mail",
    description="A mailbox: folders, threads, labels, contacts, drafts and sending.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(
        mailboxes.tools,
        messages.tools,
        drafts.tools,
        exchange.tools,
        filters.tools,
        bulk.tools,
        reports.tools,
    ),
    settings=MailSettings,
)

__all__ = ["domain"]

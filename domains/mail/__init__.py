"""A mailbox: folders, messages, threads, labels, contacts, drafts, sending over SMTP, filter
rules, and .eml/mbox import and export."""

from domains.mail.capabilities import domain

__all__ = ["domain"]

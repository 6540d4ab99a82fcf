"""A small business's double-entry ledger: accounts, journal, invoices, bills, payments, reports."""

from domains.finance.capabilities import domain

__all__ = ["domain"]

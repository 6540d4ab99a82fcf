"""The ledger's tables: currencies and their rates, tax rates, the chart of accounts, customers
and vendors, journal entries with their lines, and budgets. The trade documents that post into
the ledger (invoices, bills, payments, expense claims, recurring templates) are in
document_tables.py."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, MappedColumn, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column

AccountType = Literal["asset", "liability", "equity", "income", "expense"]
# The accounts the ledger posts to by itself; each role is held by at most one account.
AccountRole = Literal["receivable", "payable", "tax_collected", "tax_paid", "reimbursements"]
EntryStatus = Literal["draft", "posted"]
EntrySource = Literal["manual", "invoice", "bill", "payment", "expense_claim"]

ZERO = Decimal("0.00")


def money(**options: Any) -> MappedColumn[Any]:
    """An amount: exact to the cent, never a float."""
    return mapped_column(Numeric(18, 2), default=ZERO, **options)


class Currency(Base):
    __tablename__ = "finance_currency"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(3), unique=True)
    name: Mapped[str] = mapped_column(String(60))
    symbol: Mapped[str] = mapped_column(String(8), default="")
    # The ledger's own currency: every journal amount is in it. Set by the seed, exactly one.
    is_base: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class ExchangeRate(Base):
    """Units of the base currency one unit of `currency` bought on `rate_date`; a rate holds
    until the next one."""

    __tablename__ = "finance_exchange_rate"
    __table_args__ = (
        UniqueConstraint("currency_id", "rate_date"),
        CheckConstraint("rate > 0", name="rate"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    currency_id: Mapped[int] = mapped_column(ForeignKey("finance_currency.id", ondelete="CASCADE"))
    rate_date: Mapped[date] = mapped_column(Date)
    rate: Mapped[Decimal] = mapped_column(Numeric(18, 6))
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    currency: Mapped[Currency] = relationship(lazy="joined")


class TaxRate(Base):
    __tablename__ = "finance_tax_rate"
    __table_args__ = (CheckConstraint("rate >= 0 AND rate <= 100", name="rate"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(60), unique=True)
    rate: Mapped[Decimal] = mapped_column(Numeric(5, 2))  # percent
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Account(Base):
    __tablename__ = "finance_account"
    __table_args__ = (one_of("type", AccountType), one_of("role", AccountRole), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(20), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    type: Mapped[str] = mapped_column(String(10))
    role: Mapped[str | None] = mapped_column(String(20), unique=True)
    # A bank or cash account: payments go through it and the cash flow report follows it.
    is_bank: Mapped[bool] = mapped_column(Boolean, default=False)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Party:
    """The columns of a customer or a vendor, declared once: the two are records of one shape
    (their inputs share `PartyFields`, their capabilities one registration). Each table adds
    its id first, so the columns keep the order the migration gives them."""

    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str | None] = mapped_column(String(254))
    address: Mapped[str] = mapped_column(Text, default="")
    tax_number: Mapped[str] = mapped_column(String(40), default="")
    payment_terms_days: Mapped[int] = mapped_column(Integer, default=30)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Customer(Party, Base):
    __tablename__ = "finance_customer"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)


class Vendor(Party, Base):
    __tablename__ = "finance_vendor"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)


class JournalEntry(Base):
    """A dated set of lines whose debits equal their credits once posted; posted entries never
    change (a reversal undoes one). `source` names the document that wrote it, if any."""

    __tablename__ = "finance_journal_entry"
    __table_args__ = (one_of("status", EntryStatus), one_of("source", EntrySource), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_date: Mapped[date] = mapped_column(Date, index=True)
    memo: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(10), default="draft")
    source: Mapped[str] = mapped_column(String(20), default="manual")
    source_id: Mapped[int | None] = mapped_column(Integer)
    reverses_id: Mapped[int | None] = mapped_column(ForeignKey("finance_journal_entry.id"), index=True)
    posted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    lines: Mapped[list[JournalLine]] = relationship(
        back_populates="entry", cascade="all, delete-orphan", passive_deletes=True, order_by="JournalLine.id"
    )
    reversals: Mapped[list[JournalEntry]] = relationship(order_by="JournalEntry.id", viewonly=True)


class JournalLine(Base):
    __tablename__ = "finance_journal_line"
    __table_args__ = (
        CheckConstraint("debit >= 0 AND credit >= 0 AND (debit = 0 OR credit = 0)", name="amounts"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("finance_journal_entry.id", ondelete="CASCADE"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("finance_account.id"), index=True)
    debit: Mapped[Decimal] = money()
    credit: Mapped[Decimal] = money()
    description: Mapped[str] = mapped_column(String(200), default="")

    entry: Mapped[JournalEntry] = relationship(back_populates="lines")
    account: Mapped[Account] = relationship(lazy="joined")


class Budget(Base):
    """The amount planned for one account in one calendar month (`period` is YYYY-MM)."""

    __tablename__ = "finance_budget"
    __table_args__ = (UniqueConstraint("account_id", "period"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("finance_account.id", ondelete="CASCADE"))
    period: Mapped[str] = mapped_column(String(7))
    amount: Mapped[Decimal] = money()
    notes: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    account: Mapped[Account] = relationship(lazy="joined")

"""The trade documents that post into the ledger: invoices to customers and bills from vendors
(each with lines), payments allocated to them, expense claims, and recurring invoice templates.

Totals are stored, computed from the lines whenever they change, so that lists and the aged
reports read them without recomputing; `base_total` is the total in the base currency as posted.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from sqlalchemy import Boolean, CheckConstraint, Date, ForeignKey, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, declared_attr, mapped_column, relationship

from domains.finance.tables import Account, Currency, Customer, Vendor, money
from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column

InvoiceStatus = Literal["draft", "sent", "paid", "void"]
BillStatus = Literal["draft", "posted", "paid", "void"]
PaymentDirection = Literal["received", "made"]
PaymentStatus = Literal["posted", "void"]
ClaimStatus = Literal["draft", "submitted", "reimbursed"]
Frequency = Literal["weekly", "monthly", "quarterly", "yearly"]

ENTRY_FK = "finance_journal_entry.id"


class Invoice(Base):
    __tablename__ = "finance_invoice"
    __table_args__ = (one_of("status", InvoiceStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("finance_customer.id"), index=True)
    currency_id: Mapped[int] = mapped_column(ForeignKey("finance_currency.id"))
    issue_date: Mapped[date] = mapped_column(Date)
    due_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10), default="draft")
    notes: Mapped[str] = mapped_column(Text, default="")
    subtotal: Mapped[Decimal] = money()
    tax_total: Mapped[Decimal] = money()
    total: Mapped[Decimal] = money()
    amount_paid: Mapped[Decimal] = money()
    exchange_rate: Mapped[Decimal | None] = mapped_column(Numeric(18, 6))
    base_total: Mapped[Decimal | None] = mapped_column(Numeric(18, 2))
    journal_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    void_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    recurring_invoice_id: Mapped[int | None] = mapped_column(ForeignKey("finance_recurring.id", ondelete="SET NULL"))
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    customer: Mapped[Customer] = relationship(lazy="joined")
    currency: Mapped[Currency] = relationship(lazy="joined")
    lines: Mapped[list[InvoiceLine]] = relationship(
        back_populates="document", cascade="all, delete-orphan", passive_deletes=True, order_by="InvoiceLine.position"
    )


class TradeLine:
    """The columns of an invoice's or a bill's line, declared once: `build_lines` fills either
    table the same way and the reports add them up the same way. Each table adds its id and the
    key to its document first, so the columns keep the order the migration gives them."""

    position: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    quantity: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    unit_price: Mapped[Decimal] = money()
    account_id: Mapped[int] = mapped_column(ForeignKey("finance_account.id"))
    tax_rate_id: Mapped[int | None] = mapped_column(ForeignKey("finance_tax_rate.id"))
    net_amount: Mapped[Decimal] = money()
    tax_amount: Mapped[Decimal] = money()

    @declared_attr
    def account(cls) -> Mapped[Account]:
        return relationship(Account, lazy="joined")


class InvoiceLine(TradeLine, Base):
    __tablename__ = "finance_invoice_line"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    invoice_id: Mapped[int] = mapped_column(ForeignKey("finance_invoice.id", ondelete="CASCADE"), index=True)

    document: Mapped[Invoice] = relationship(back_populates="lines")


class Bill(Base):
    """A vendor's bill; `reference` is the vendor's own number, unique per vendor so that the
    same bill cannot be entered twice."""

    __tablename__ = "finance_bill"
    __table_args__ = (one_of("status", BillStatus), UniqueConstraint("vendor_id", "reference"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    vendor_id: Mapped[int] = mapped_column(ForeignKey("finance_vendor.id"))
    reference: Mapped[str] = mapped_column(String(60))
    currency_id: Mapped[int] = mapped_column(ForeignKey("finance_currency.id"))
    bill_date: Mapped[date] = mapped_column(Date)
    due_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10), default="draft")
    notes: Mapped[str] = mapped_column(Text, default="")
    subtotal: Mapped[Decimal] = money()
    tax_total: Mapped[Decimal] = money()
    total: Mapped[Decimal] = money()
    amount_paid: Mapped[Decimal] = money()
    exchange_rate: Mapped[Decimal | None] = mapped_column(Numeric(18, 6))
    base_total: Mapped[Decimal | None] = mapped_column(Numeric(18, 2))
    journal_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    void_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    posted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    vendor: Mapped[Vendor] = relationship(lazy="joined")
    currency: Mapped[Currency] = relationship(lazy="joined")
    lines: Mapped[list[BillLine]] = relationship(
        back_populates="document", cascade="all, delete-orphan", passive_deletes=True, order_by="BillLine.position"
    )


class BillLine(TradeLine, Base):
    __tablename__ = "finance_bill_line"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    bill_id: Mapped[int] = mapped_column(ForeignKey("finance_bill.id", ondelete="CASCADE"), index=True)

    document: Mapped[Bill] = relationship(back_populates="lines")


class Payment(Base):
    """Money received from a customer or paid to a vendor, in the currency of the documents it
    settles; `base_amount` is what the ledger posted."""

    __tablename__ = "finance_payment"
    __table_args__ = (
        one_of("direction", PaymentDirection),
        one_of("status", PaymentStatus),
        CheckConstraint("(customer_id IS NULL) <> (vendor_id IS NULL)", name="party"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    direction: Mapped[str] = mapped_column(String(10))
    customer_id: Mapped[int | None] = mapped_column(ForeignKey("finance_customer.id"), index=True)
    vendor_id: Mapped[int | None] = mapped_column(ForeignKey("finance_vendor.id"), index=True)
    currency_id: Mapped[int] = mapped_column(ForeignKey("finance_currency.id"))
    payment_date: Mapped[date] = mapped_column(Date)
    amount: Mapped[Decimal] = money()
    base_amount: Mapped[Decimal] = money()
    bank_account_id: Mapped[int] = mapped_column(ForeignKey("finance_account.id"))
    reference: Mapped[str] = mapped_column(String(60), default="")
    status: Mapped[str] = mapped_column(String(10), default="posted")
    journal_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    void_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    voided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    currency: Mapped[Currency] = relationship(lazy="joined")
    allocations: Mapped[list[PaymentAllocation]] = relationship(
        back_populates="payment", cascade="all, delete-orphan", passive_deletes=True, order_by="PaymentAllocation.id"
    )


class PaymentAllocation(Base):
    """The part of a payment that settles one invoice or one bill."""

    __tablename__ = "finance_payment_allocation"
    __table_args__ = (CheckConstraint("(invoice_id IS NULL) <> (bill_id IS NULL)", name="document"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    payment_id: Mapped[int] = mapped_column(ForeignKey("finance_payment.id", ondelete="CASCADE"), index=True)
    invoice_id: Mapped[int | None] = mapped_column(ForeignKey("finance_invoice.id"), index=True)
    bill_id: Mapped[int | None] = mapped_column(ForeignKey("finance_bill.id"), index=True)
    amount: Mapped[Decimal] = money()
    base_amount: Mapped[Decimal] = money()

    payment: Mapped[Payment] = relationship(back_populates="allocations")


class ExpenseClaim(Base):
    """An employee's out-of-pocket expense: `amount` is net of tax. Submitting it books the cost
    and what the business owes the claimant; reimbursing pays that debt from a bank account."""

    __tablename__ = "finance_expense_claim"
    __table_args__ = (one_of("status", ClaimStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    claimant: Mapped[str] = mapped_column(String(120))
    claim_date: Mapped[date] = mapped_column(Date)
    description: Mapped[str] = mapped_column(String(200))
    expense_account_id: Mapped[int] = mapped_column(ForeignKey("finance_account.id"))
    amount: Mapped[Decimal] = money()
    tax_rate_id: Mapped[int | None] = mapped_column(ForeignKey("finance_tax_rate.id"))
    tax_amount: Mapped[Decimal] = money()
    status: Mapped[str] = mapped_column(String(12), default="draft")
    journal_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    paid_entry_id: Mapped[int | None] = mapped_column(ForeignKey(ENTRY_FK))
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reimbursed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class RecurringInvoice(Base):
    """A template that becomes a draft invoice every period from `start_date`; the n-th invoice
    is dated start + n periods, so month ends do not drift (31 Jan, 28 Feb, 31 Mar)."""

    __tablename__ = "finance_recurring"
    __table_args__ = (one_of("frequency", Frequency), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(120))
    customer_id: Mapped[int] = mapped_column(ForeignKey("finance_customer.id"), index=True)
    currency_id: Mapped[int] = mapped_column(ForeignKey("finance_currency.id"))
    frequency: Mapped[str] = mapped_column(String(10))
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    next_date: Mapped[date | None] = mapped_column(Date)
    occurrences: Mapped[int] = mapped_column(Integer, default=0)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    notes: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    customer: Mapped[Customer] = relationship(lazy="joined")
    currency: Mapped[Currency] = relationship(lazy="joined")
    lines: Mapped[list[RecurringInvoiceLine]] = relationship(
        back_populates="template",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="RecurringInvoiceLine.position",
    )


class RecurringInvoiceLine(Base):
    __tablename__ = "finance_recurring_line"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("finance_recurring.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    quantity: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    unit_price: Mapped[Decimal] = money()
    account_id: Mapped[int] = mapped_column(ForeignKey("finance_account.id"))
    tax_rate_id: Mapped[int | None] = mapped_column(ForeignKey("finance_tax_rate.id"))

    template: Mapped[RecurringInvoice] = relationship(back_populates="lines")

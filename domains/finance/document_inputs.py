"""The arguments of the trade documents' tools: invoices, bills, payments, expense claims,
recurring invoice templates and budgets."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated

from pydantic import Field

from domains.finance.document_tables import (
    BillStatus,
    ClaimStatus,
    Frequency,
    InvoiceStatus,
    PaymentDirection,
    PaymentStatus,
)
from domains.finance.inputs import Args, CurrencyCode, Memo, Money, Name, Page, PositiveMoney, Text, places
from facade.kit import Id

Quantity = Annotated[Decimal, Field(gt=0, max_digits=12, decimal_places=2), places(2)]
Period = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="A month, YYYY-MM.")]
Ids = Annotated[list[Id], Field(min_length=1, max_length=100)]
Reference = Annotated[str, Field(min_length=1, max_length=60)]


class DocumentLine(Args):
    description: Memo
    quantity: Quantity = Decimal(1)
    unit_price: Money
    account_id: Id
    tax_rate_id: Id | None = Field(None, description="Default: no tax.")


class SaleLine(DocumentLine):
    account_id: Id = Field(description="An income account.")


class PurchaseLine(DocumentLine):
    account_id: Id = Field(description="An expense or asset account.")


SaleLines = Annotated[list[SaleLine], Field(min_length=1, max_length=100)]
PurchaseLines = Annotated[list[PurchaseLine], Field(min_length=1, max_length=100)]
CurrencyField = Annotated[CurrencyCode | None, Field(description="Default: the base currency.")]


# Invoices


class InvoiceCreate(Args):
    customer_id: Id
    issue_date: date
    due_date: date | None = Field(None, description="Default: issue date plus the customer's terms.")
    currency: CurrencyField = None
    notes: Text = ""
    lines: SaleLines


class InvoiceUpdate(Args):
    invoice_id: Id
    customer_id: Id | None = None
    issue_date: date | None = None
    due_date: date | None = None
    currency: CurrencyCode | None = None
    notes: Text | None = None
    lines: SaleLines | None = Field(None, description="Replaces every line.")


class InvoiceFilter(Page):
    customer_id: Id | None = None
    status: InvoiceStatus | None = None
    date_from: date | None = None
    date_to: date | None = None
    overdue: bool = Field(False, description="Only unpaid invoices past their due date today.")


class InvoiceRef(Args):
    invoice_id: Id


class InvoiceVoid(Args):
    invoice_id: Id
    void_date: date | None = Field(None, description="Date of the reversing entry; default: today.")


class InvoiceBulkSend(Args):
    invoice_ids: Ids


class InvoiceDuplicate(Args):
    invoice_id: Id
    issue_date: date | None = Field(None, description="Default: today.")


# Bills


class BillCreate(Args):
    vendor_id: Id
    reference: Reference = Field(description="The vendor's bill number.")
    bill_date: date
    due_date: date | None = Field(None, description="Default: bill date plus the vendor's terms.")
    currency: CurrencyField = None
    notes: Text = ""
    lines: PurchaseLines


class BillUpdate(Args):
    bill_id: Id
    vendor_id: Id | None = None
    reference: Reference | None = None
    bill_date: date | None = None
    due_date: date | None = None
    currency: CurrencyCode | None = None
    notes: Text | None = None
    lines: PurchaseLines | None = Field(None, description="Replaces every line.")


class BillFilter(Page):
    vendor_id: Id | None = None
    status: BillStatus | None = None
    date_from: date | None = None
    date_to: date | None = None


class BillRef(Args):
    bill_id: Id


class BillVoid(Args):
    bill_id: Id
    void_date: date | None = Field(None, description="Date of the reversing entry; default: today.")


# Payments


class Allocation(Args):
    document_id: Id = Field(description="An invoice id when received, a bill id when made.")
    amount: PositiveMoney


class PaymentCreate(Args):
    direction: PaymentDirection
    payment_date: date
    amount: PositiveMoney = Field(description="In the documents' currency; must equal the allocations.")
    allocations: list[Allocation] = Field(min_length=1, max_length=50)
    bank_account_id: Id | None = Field(None, description="Default: the first active bank account.")
    reference: Annotated[str, Field(max_length=60)] = ""


class PaymentFilter(Page):
    direction: PaymentDirection | None = None
    customer_id: Id | None = None
    vendor_id: Id | None = None
    status: PaymentStatus | None = None


class PaymentVoid(Args):
    payment_id: Id
    void_date: date | None = Field(None, description="Date of the reversing entry; default: today.")


# Expense claims


class ExpenseClaimCreate(Args):
    claimant: Name
    claim_date: date
    description: Memo
    expense_account_id: Id
    amount: PositiveMoney = Field(description="Net of tax.")
    tax_rate_id: Id | None = None


class ExpenseClaimUpdate(Args):
    expense_claim_id: Id
    claimant: Name | None = None
    claim_date: date | None = None
    description: Memo | None = None
    expense_account_id: Id | None = None
    amount: PositiveMoney | None = None
    tax_rate_id: Id | None = Field(None, description="null removes the tax.")


class ExpenseClaimFilter(Page):
    status: ClaimStatus | None = None
    claimant: Name | None = None


class ExpenseClaimRef(Args):
    expense_claim_id: Id


class ExpenseClaimReimburse(Args):
    expense_claim_id: Id
    paid_date: date | None = Field(None, description="Default: today.")
    bank_account_id: Id | None = Field(None, description="Default: the first active bank account.")


# Recurring invoice templates


class RecurringInvoiceCreate(Args):
    name: Name
    customer_id: Id
    frequency: Frequency
    start_date: date = Field(description="Date of the first invoice.")
    end_date: date | None = None
    currency: CurrencyField = None
    notes: Text = ""
    lines: Annotated[list[SaleLine], Field(min_length=1, max_length=50)]


class RecurringInvoiceUpdate(Args):
    recurring_invoice_id: Id
    name: Name | None = None
    end_date: date | None = None
    active: bool | None = None
    notes: Text | None = None
    lines: Annotated[list[SaleLine], Field(min_length=1, max_length=50)] | None = None


class RecurringInvoiceFilter(Page):
    customer_id: Id | None = None
    active: bool | None = None


class RecurringInvoiceRun(Args):
    as_of: date | None = Field(None, description="Make every invoice due on or before; default: today.")
    send: bool = Field(False, description="Send the new invoices too; else they stay drafts.")


# Budgets


class BudgetSet(Args):
    account_id: Id
    period: Period
    amount: Money
    notes: Annotated[str, Field(max_length=200)] = ""


class BudgetFilter(Page):
    account_id: Id | None = None
    period: Period | None = None


class BudgetReport(Args):
    period_from: Period
    period_to: Period
    account_id: Id | None = None

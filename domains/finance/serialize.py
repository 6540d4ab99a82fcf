"""Records as JSON-friendly dicts: ids, ISO dates, and amounts as strings."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from domains.finance.amounts import cents, text
from domains.finance.document_tables import (
    Bill,
    ExpenseClaim,
    Invoice,
    Payment,
    PaymentAllocation,
    RecurringInvoice,
)
from domains.finance.tables import Account, Budget, ExchangeRate, JournalEntry
from facade.kit import iso

Line = Any  # an InvoiceLine, BillLine or RecurringInvoiceLine: the same columns


def rate(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def kind_of_account(account: Account) -> str:
    """"an asset account", "a liability account": for messages."""
    return f"{'an' if account.type[0] in 'aeiou' else 'a'} {account.type} account"


def invoice_number(invoice_id: int) -> str:
    """Invoice numbers follow ids, which are never reused, so numbers have no gaps to explain
    but deleted drafts."""
    return f"INV-{invoice_id:04d}"


def exchange_rate(r: ExchangeRate) -> dict[str, Any]:
    return {
        "id": r.id,
        "currency": r.currency.code,
        "rate_date": iso(r.rate_date),
        "rate": rate(r.rate),
        "updated_at": iso(r.updated_at),
    }


def journal_entry(e: JournalEntry) -> dict[str, Any]:
    debits = cents(sum((line.debit for line in e.lines), Decimal(0)))
    credits = cents(sum((line.credit for line in e.lines), Decimal(0)))
    return {
        "id": e.id,
        "entry_date": iso(e.entry_date),
        "memo": e.memo,
        "status": e.status,
        "source": e.source,
        "source_id": e.source_id,
        "reverses_id": e.reverses_id,
        "reversed_by_ids": [r.id for r in e.reversals],
        "lines": [
            {
                "id": line.id,
                "account_id": line.account_id,
                "account": f"{line.account.code} {line.account.name}",
                "debit": text(line.debit),
                "credit": text(line.credit),
                "description": line.description,
            }
            for line in e.lines
        ],
        "debit_total": str(debits),
        "credit_total": str(credits),
        "balanced": debits == credits,
        "posted_at": iso(e.posted_at),
        "created_at": iso(e.created_at),
    }


def document_line(line: Line) -> dict[str, Any]:
    shown = {
        "description": line.description,
        "quantity": str(line.quantity),
        "unit_price": text(line.unit_price),
        "account_id": line.account_id,
        "tax_rate_id": line.tax_rate_id,
    }
    if hasattr(line, "net_amount"):
        shown |= {"net_amount": text(line.net_amount), "tax_amount": text(line.tax_amount)}
    return shown


def _amounts(d: Invoice | Bill) -> dict[str, Any]:
    return {
        "currency": d.currency.code,
        "subtotal": text(d.subtotal),
        "tax_total": text(d.tax_total),
        "total": text(d.total),
        "amount_paid": text(d.amount_paid),
        "balance_due": text(d.total - d.amount_paid) if d.status in ("sent", "posted", "paid") else "0.00",
        "exchange_rate": rate(d.exchange_rate),
        "base_total": None if d.base_total is None else text(d.base_total),
    }


def invoice(i: Invoice) -> dict[str, Any]:
    return {
        "id": i.id,
        "number": invoice_number(i.id),
        "customer_id": i.customer_id,
        "customer": i.customer.name,
        "status": i.status,
        "issue_date": iso(i.issue_date),
        "due_date": iso(i.due_date),
        **_amounts(i),
        "notes": i.notes,
        "lines": [document_line(line) for line in i.lines],
        "journal_entry_id": i.journal_entry_id,
        "void_entry_id": i.void_entry_id,
        "recurring_invoice_id": i.recurring_invoice_id,
        "sent_at": iso(i.sent_at),
        "created_at": iso(i.created_at),
    }


def bill(b: Bill) -> dict[str, Any]:
    return {
        "id": b.id,
        "vendor_id": b.vendor_id,
        "vendor": b.vendor.name,
        "reference": b.reference,
        "status": b.status,
        "bill_date": iso(b.bill_date),
        "due_date": iso(b.due_date),
        **_amounts(b),
        "notes": b.notes,
        "lines": [document_line(line) for line in b.lines],
        "journal_entry_id": b.journal_entry_id,
        "void_entry_id": b.void_entry_id,
        "posted_at": iso(b.posted_at),
        "created_at": iso(b.created_at),
    }


def allocation(a: PaymentAllocation) -> dict[str, Any]:
    document = {"invoice_id": a.invoice_id} if a.invoice_id is not None else {"bill_id": a.bill_id}
    return {**document, "amount": text(a.amount), "base_amount": text(a.base_amount)}


def payment(p: Payment) -> dict[str, Any]:
    party = {"customer_id": p.customer_id} if p.direction == "received" else {"vendor_id": p.vendor_id}
    return {
        "id": p.id,
        "direction": p.direction,
        **party,
        "payment_date": iso(p.payment_date),
        "currency": p.currency.code,
        "amount": text(p.amount),
        "base_amount": text(p.base_amount),
        "bank_account_id": p.bank_account_id,
        "reference": p.reference,
        "status": p.status,
        "allocations": [allocation(a) for a in p.allocations],
        "journal_entry_id": p.journal_entry_id,
        "void_entry_id": p.void_entry_id,
        "voided_at": iso(p.voided_at),
        "created_at": iso(p.created_at),
    }


def expense_claim(c: ExpenseClaim) -> dict[str, Any]:
    return {
        "id": c.id,
        "claimant": c.claimant,
        "claim_date": iso(c.claim_date),
        "description": c.description,
        "expense_account_id": c.expense_account_id,
        "amount": text(c.amount),
        "tax_rate_id": c.tax_rate_id,
        "tax_amount": text(c.tax_amount),
        "total": text(c.amount + c.tax_amount),
        "status": c.status,
        "journal_entry_id": c.journal_entry_id,
        "paid_entry_id": c.paid_entry_id,
        "submitted_at": iso(c.submitted_at),
        "reimbursed_at": iso(c.reimbursed_at),
        "created_at": iso(c.created_at),
    }


def recurring_invoice(t: RecurringInvoice) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "customer_id": t.customer_id,
        "customer": t.customer.name,
        "currency": t.currency.code,
        "frequency": t.frequency,
        "start_date": iso(t.start_date),
        "end_date": iso(t.end_date),
        "next_date": iso(t.next_date),
        "occurrences": t.occurrences,
        "active": t.active,
        "notes": t.notes,
        "lines": [document_line(line) for line in t.lines],
        "created_at": iso(t.created_at),
    }


def budget(b: Budget) -> dict[str, Any]:
    return {
        "id": b.id,
        "account_id": b.account_id,
        "account": f"{b.account.code} {b.account.name}",
        "period": b.period,
        "amount": text(b.amount),
        "notes": b.notes,
        "updated_at": iso(b.updated_at),
    }

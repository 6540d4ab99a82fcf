"""Invoices and bills: one shape, two directions. A document is a draft until it is issued
(an invoice sent, a bill posted); issuing fixes its exchange rate and writes its journal entry.
After that only its due date and notes change; voiding it reverses the entry, and is refused
while payments are allocated to it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.finance import ledger, rates
from domains.finance.amounts import ZERO, check_fits, line_amounts, to_base, total
from domains.finance.document_inputs import DocumentLine
from domains.finance.document_tables import (
    Bill,
    BillLine,
    Invoice,
    InvoiceLine,
    Payment,
    PaymentAllocation,
    RecurringInvoiceLine,
)
from domains.finance.entities import ACCOUNT, BILL, CUSTOMER, INVOICE, JOURNAL_ENTRY, TAX_RATE, VENDOR
from domains.finance.serialize import invoice_number, kind_of_account
from domains.finance.tables import Currency
from facade.kit import Conflict, Entity, InvalidRequest, utcnow

Document = Any  # an Invoice or a Bill


@dataclass(frozen=True, slots=True)
class Kind:
    """What differs between an invoice and a bill."""

    name: str
    entity: Entity[Any]
    line_table: type[Any]
    party: Entity[Any]
    party_field: str
    date_field: str
    open_status: str
    control_role: str  # the account the total is owed on
    tax_role: str
    line_types: tuple[str, ...]
    issue_tool: str
    debit_control: bool  # an invoice debits receivables; a bill credits payables

    def label(self, doc: Document) -> str:
        return f"{self.name} {doc.id}"

    def title(self, doc: Document) -> str:
        if self.name == "invoice":
            return f"Invoice {invoice_number(doc.id)} to {doc.customer.name}"
        return f"Bill {doc.reference} from {doc.vendor.name}"


INVOICES = Kind(
    "invoice", INVOICE, InvoiceLine, CUSTOMER, "customer_id", "issue_date", "sent", "receivable", "tax_collected",
    ("income",), "finance.invoice_send", debit_control=True,
)  # fmt: skip
BILLS = Kind(
    "bill", BILL, BillLine, VENDOR, "vendor_id", "bill_date", "posted", "payable", "tax_paid",
    ("expense", "asset"), "finance.bill_post", debit_control=False,
)  # fmt: skip


def build_lines(db: Session, kind: Kind, lines: Sequence[DocumentLine]) -> list[Any]:
    """Priced and taxed lines, each on an active account of the right type."""
    built = []
    for position, line in enumerate(lines, start=1):
        account = ACCOUNT.fetch(db, line.account_id)
        wanted = " or ".join(kind.line_types)
        if account.type not in kind.line_types:
            raise InvalidRequest(
                f"line {position}: account {account.code} {account.name} is {kind_of_account(account)}; "
                f"{kind.name} lines go to {wanted} accounts (finance.account_list type={kind.line_types[0]})"
            )
        if account.is_bank or account.role is not None:
            what = "a bank" if account.is_bank else f"the ledger's {account.role}"
            raise InvalidRequest(
                f"line {position}: account {account.code} is {what} account, which only payments and the ledger "
                f"post to; pick another {wanted} account"
            )
        if not account.active:
            raise Conflict(f"line {position}: account {account.code} is inactive; pick an active {wanted} account")
        percent = None
        if line.tax_rate_id is not None:
            tax_rate = TAX_RATE.fetch(db, line.tax_rate_id)
            if not tax_rate.active:
                raise Conflict(
                    f"line {position}: tax rate {tax_rate.id} ({tax_rate.name}) is inactive; pick one from "
                    "finance.tax_rate_list active=true"
                )
            percent = tax_rate.rate
        net, tax = line_amounts(line.quantity, line.unit_price, percent)
        check_fits(net + tax, f"line {position}")
        built.append(
            kind.line_table(
                position=position,
                description=line.description,
                quantity=line.quantity,
                unit_price=line.unit_price,
                account_id=account.id,
                account=account,
                tax_rate_id=line.tax_rate_id,
                net_amount=net,
                tax_amount=tax,
            )
        )
    return built


def set_lines(doc: Document, lines: list[Any]) -> None:
    subtotal = total(line.net_amount for line in lines)
    tax_total = total(line.tax_amount for line in lines)
    check_fits(subtotal + tax_total, "the document's total")
    doc.lines = lines
    doc.subtotal, doc.tax_total, doc.total = subtotal, tax_total, subtotal + tax_total


def check_dates(doc_date: date, due_date: date) -> None:
    if due_date < doc_date:
        raise InvalidRequest(f"the due date {due_date} is before the document date {doc_date}; give a later due date")


def bill_reference_free(db: Session, vendor_id: int, reference: str, except_id: int | None = None) -> None:
    same = (Bill.vendor_id == vendor_id, Bill.reference == reference, Bill.id != except_id)
    clash = db.scalar(select(Bill.id).where(*same))
    if clash is not None:
        raise Conflict(
            f"bill {clash} of vendor {vendor_id} already has reference {reference!r}; that bill may be entered "
            "already (finance.bill_get), or give another reference"
        )


def create(
    db: Session,
    kind: Kind,
    party_id: int,
    doc_date: date,
    lines: Sequence[DocumentLine],
    *,
    due_date: date | None = None,
    currency: Currency | None = None,
    notes: str = "",
    **extra: Any,
) -> Document:
    """A draft document; the due date defaults to the party's payment terms."""
    party = kind.party.fetch(db, party_id)
    try:
        due = due_date or doc_date + timedelta(days=party.payment_terms_days)
    except OverflowError:
        raise InvalidRequest(f"{doc_date} plus the payment terms is past the calendar; give a due_date") from None
    check_dates(doc_date, due)
    if kind is BILLS:
        bill_reference_free(db, party.id, extra["reference"])
    doc = kind.entity.table(
        **{kind.party_field: party.id, kind.date_field: doc_date},
        due_date=due,
        currency=currency or rates.base_currency(db),
        notes=notes,
        status="draft",
        amount_paid=ZERO,
        **extra,
    )
    set_lines(doc, build_lines(db, kind, lines))
    db.add(doc)
    db.flush()
    return doc


# Fields an issued document may still change: they move no amount in the ledger.
LEDGER_NEUTRAL = ("due_date", "notes")


def update(db: Session, kind: Kind, doc: Document, changes: dict[str, Any]) -> Document:
    if not changes:
        raise InvalidRequest(f"nothing to change; give at least one field of the {kind.name} to change")
    cleared = [f for f, v in changes.items() if v is None and f != "currency"]
    if cleared:
        raise InvalidRequest(f"{', '.join(cleared)} cannot be null; omit a field to keep its current value")
    if doc.status != "draft":
        frozen = [f for f in changes if f not in LEDGER_NEUTRAL]
        if frozen:
            raise Conflict(
                f"{kind.label(doc)} is {doc.status}; only {' and '.join(LEDGER_NEUTRAL)} can change now, not "
                f"{', '.join(frozen)}. Void it and issue a new one to change amounts"
            )
    if kind.party_field in changes:
        kind.party.fetch(db, changes[kind.party_field])
    if "currency" in changes:
        doc.currency = rates.currency_by_code(db, changes.pop("currency"))
    if kind is BILLS and ("reference" in changes or "vendor_id" in changes):
        vendor_id, reference = changes.get("vendor_id", doc.vendor_id), changes.get("reference", doc.reference)
        bill_reference_free(db, vendor_id, reference, doc.id)
    if "lines" in changes:
        lines = build_lines(db, kind, changes.pop("lines"))
        doc.lines = []  # the old lines go first: positions restart at 1
        db.flush()
        set_lines(doc, lines)
    for field, value in changes.items():
        setattr(doc, field, value)
    check_dates(getattr(doc, kind.date_field), doc.due_date)
    db.flush()
    db.refresh(doc)
    return doc


def issue(db: Session, kind: Kind, doc: Document) -> Document:
    """Send an invoice or post a bill: fix the rate and write the journal entry."""
    if doc.status != "draft":
        raise Conflict(f"{kind.label(doc)} is already {doc.status}; only a draft can be issued")
    if doc.total <= ZERO:
        raise InvalidRequest(f"{kind.label(doc)} totals {doc.total}; give it a priced line before issuing it")
    doc_date: date = getattr(doc, kind.date_field)
    rate = rates.rate_on(db, doc.currency, doc_date)
    control = ledger.role_account(db, kind.control_role)
    tax_account = ledger.role_account(db, kind.tax_role)
    nets = [(line, to_base(line.net_amount, rate)) for line in doc.lines]
    tax = total(to_base(line.tax_amount, rate) for line in doc.lines)
    base_total = total(net for _, net in nets) + tax

    def side(amount: Any, debit: bool) -> dict[str, Any]:
        return {"debit": amount} if debit else {"credit": amount}

    postings = [ledger.Posting(control, **side(base_total, kind.debit_control), description=kind.title(doc))]
    postings += [
        ledger.Posting(line.account, **side(net, not kind.debit_control), description=line.description)
        for line, net in nets
    ]
    postings.append(ledger.Posting(tax_account, **side(tax, not kind.debit_control), description="Tax"))
    entry = ledger.post(db, doc_date, kind.title(doc)[:200], postings, source=kind.name, source_id=doc.id)
    doc.status = kind.open_status
    doc.exchange_rate = rate
    doc.base_total = base_total
    doc.journal_entry_id = entry.id
    setattr(doc, "sent_at" if kind is INVOICES else "posted_at", utcnow())
    db.flush()
    return doc


def payments_of(db: Session, kind: Kind, doc: Document) -> list[int]:
    """The posted payments allocated to a document."""
    column = PaymentAllocation.invoice_id if kind is INVOICES else PaymentAllocation.bill_id
    rows = db.scalars(
        select(Payment.id)
        .join(PaymentAllocation)
        .where(column == doc.id, Payment.status == "posted")
        .order_by(Payment.id)
    )
    return list(dict.fromkeys(rows))


def void(db: Session, kind: Kind, doc: Document, on_date: date) -> Document:
    if doc.status == "draft":
        raise Conflict(f"{kind.label(doc)} is a draft and in no books; delete it with finance.{kind.name}_delete")
    if doc.status == "void":
        raise Conflict(f"{kind.label(doc)} is already void")
    paid_by = payments_of(db, kind, doc)
    if paid_by:
        raise Conflict(
            f"{kind.label(doc)} has {doc.amount_paid} paid by payment(s) {', '.join(map(str, paid_by))}; "
            "void those first with finance.payment_void"
        )
    entry = JOURNAL_ENTRY.fetch(db, doc.journal_entry_id)
    reversal = ledger.reverse(db, entry, on_date, f"Void of {kind.title(doc)}"[:200])
    doc.status = "void"
    doc.void_entry_id = reversal.id
    db.flush()
    return doc


def check_delete(kind: Kind) -> Any:
    """The delete check of a document: only drafts go, issued ones are voided."""

    def check(db: Session, doc: Document) -> dict[str, Any]:
        if doc.status != "draft":
            raise Conflict(
                f"{kind.label(doc)} is {doc.status} and in the books; void it with finance.{kind.name}_void"
            )
        return {}

    return check


def copied_lines(lines: Iterable[InvoiceLine | RecurringInvoiceLine]) -> list[DocumentLine]:
    """Stored lines (an invoice's, a template's) as the lines of a new document."""
    return [
        DocumentLine(
            description=line.description,
            quantity=line.quantity,
            unit_price=line.unit_price,
            account_id=line.account_id,
            tax_rate_id=line.tax_rate_id,
        )
        for line in lines
    ]


def duplicate(db: Session, doc: Invoice, issue_date: date) -> Invoice:
    """A new draft invoice with the same customer, currency, notes and lines."""
    lines = copied_lines(doc.lines)
    return create(db, INVOICES, doc.customer_id, issue_date, lines, currency=doc.currency, notes=doc.notes)

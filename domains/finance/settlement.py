"""Payments: money received settles invoices, money paid settles bills. A payment is allocated
in full to open documents of one party and one currency, none beyond what it still owes — an
overpayment is refused — and it posts at the documents' own rates, so that a settled document
leaves nothing behind on receivables or payables. Voiding a payment reverses its entry and
reopens what it settled."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.finance import ledger
from domains.finance.amounts import cents, to_base, total
from domains.finance.document_inputs import Allocation, PaymentCreate
from domains.finance.document_tables import Payment, PaymentAllocation
from domains.finance.documents import BILLS, INVOICES, Kind
from domains.finance.entities import JOURNAL_ENTRY
from facade.kit import Conflict, InvalidRequest, utcnow

Document = Any


def kind_of(direction: str) -> Kind:
    return INVOICES if direction == "received" else BILLS


def base_paid(db: Session, kind: Kind, doc: Document) -> Decimal:
    """What posted payments have settled of a document, in the base currency."""
    column = PaymentAllocation.invoice_id if kind is INVOICES else PaymentAllocation.bill_id
    paid = db.scalar(
        select(func.sum(PaymentAllocation.base_amount))
        .join(Payment)
        .where(column == doc.id, Payment.status == "posted")
    )
    return cents(paid)


def open_documents(db: Session, kind: Kind, allocations: Sequence[Allocation]) -> list[Document]:
    """The allocated documents, each open, all of one party and one currency."""
    ids = [a.document_id for a in allocations]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise InvalidRequest(f"{kind.name}s {repeated} appear more than once; give each {kind.name} one allocation")
    docs = [kind.entity.fetch(db, i) for i in ids]
    for doc in docs:
        if doc.status == "draft":
            raise Conflict(
                f"{kind.label(doc)} is a draft and owes nothing yet; issue it with {kind.issue_tool} first"
            )
        if doc.status != kind.open_status:
            raise Conflict(f"{kind.label(doc)} is {doc.status}; allocate payments to open {kind.name}s only")
    parties = sorted({getattr(doc, kind.party_field) for doc in docs})
    if len(parties) > 1:
        party = kind.party.name
        raise InvalidRequest(
            f"the {kind.name}s belong to different {kind.party.plural} ({', '.join(map(str, parties))}); "
            f"record one payment per {party}"
        )
    currencies = sorted({doc.currency.code for doc in docs})
    if len(currencies) > 1:
        raise InvalidRequest(
            f"the {kind.name}s are in different currencies ({', '.join(currencies)}); record one payment per currency"
        )
    return docs


def create(db: Session, args: PaymentCreate) -> Payment:
    kind = kind_of(args.direction)
    docs = open_documents(db, kind, args.allocations)
    for doc, allocation in zip(docs, args.allocations, strict=True):
        due = doc.total - doc.amount_paid
        if allocation.amount > due:
            raise InvalidRequest(
                f"overpayment: {kind.label(doc)} has {due} {doc.currency.code} left to pay and the allocation of "
                f"{allocation.amount} exceeds it by {allocation.amount - due}; allocate at most {due}"
            )
    allocated = total(a.amount for a in args.allocations)
    if allocated != args.amount:
        raise InvalidRequest(
            f"the payment amount {args.amount} differs from its allocations ({allocated}) by "
            f"{abs(args.amount - allocated)}; a payment settles exactly what it is allocated to, so make them equal"
        )
    bank = ledger.bank_account(db, args.bank_account_id)
    first = docs[0]
    payment = Payment(
        direction=args.direction,
        customer_id=first.customer_id if kind is INVOICES else None,
        vendor_id=first.vendor_id if kind is BILLS else None,
        currency=first.currency,
        payment_date=args.payment_date,
        amount=args.amount,
        bank_account_id=bank.id,
        reference=args.reference,
        status="posted",
    )
    for doc, allocation in zip(docs, args.allocations, strict=True):
        settles = allocation.amount == doc.total - doc.amount_paid
        # The last allocation takes what is left in the base currency, so rounding never strands a cent.
        base = doc.base_total - base_paid(db, kind, doc) if settles else to_base(allocation.amount, doc.exchange_rate)
        payment.allocations.append(
            PaymentAllocation(
                invoice_id=doc.id if kind is INVOICES else None,
                bill_id=doc.id if kind is BILLS else None,
                amount=allocation.amount,
                base_amount=base,
            )
        )
        doc.amount_paid = doc.amount_paid + allocation.amount
        if settles:
            doc.status = "paid"
    payment.base_amount = total(a.base_amount for a in payment.allocations)
    db.add(payment)
    db.flush()
    control = ledger.role_account(db, kind.control_role)
    names = ", ".join(kind.title(doc) for doc in docs)
    memo = f"Payment {'from' if kind is INVOICES else 'to'} {getattr(first, kind.party.name).name}: {names}"
    amount = payment.base_amount
    if args.direction == "received":
        postings = [ledger.Posting(bank, debit=amount), ledger.Posting(control, credit=amount)]
    else:
        postings = [ledger.Posting(control, debit=amount), ledger.Posting(bank, credit=amount)]
    entry = ledger.post(db, args.payment_date, memo[:200], postings, source="payment", source_id=payment.id)
    payment.journal_entry_id = entry.id
    db.flush()
    return payment


def void(db: Session, payment: Payment, on_date: date) -> Payment:
    if payment.status == "void":
        raise Conflict(f"payment {payment.id} is already void")
    kind = kind_of(payment.direction)
    entry = JOURNAL_ENTRY.fetch(db, payment.journal_entry_id)
    reversal = ledger.reverse(db, entry, on_date, f"Void of payment {payment.id}")
    for allocation in payment.allocations:
        doc = kind.entity.fetch(db, allocation.invoice_id or allocation.bill_id)
        doc.amount_paid = doc.amount_paid - allocation.amount
        doc.status = kind.open_status
    payment.status = "void"
    payment.void_entry_id = reversal.id
    payment.voided_at = utcnow()
    db.flush()
    return payment

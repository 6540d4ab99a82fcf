"""What customers owe and what is owed to vendors, as it stood on a date: aged receivables and
payables (by days past due), and a customer's statement of account."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.finance.amounts import ZERO, cents, text
from domains.finance.document_tables import Invoice, Payment, PaymentAllocation
from domains.finance.documents import INVOICES, Kind
from domains.finance.rates import base_currency
from domains.finance.serialize import invoice_number
from domains.finance.tables import Customer

BUCKETS = ("current", "1_30", "31_60", "61_90", "over_90")


def bucket(days_overdue: int) -> str:
    if days_overdue <= 0:
        return "current"
    for limit, name in ((30, "1_30"), (60, "31_60"), (90, "61_90")):
        if days_overdue <= limit:
            return name
    return "over_90"


def paid_as_of(db: Session, kind: Kind, as_of: date) -> dict[int, tuple[Decimal, Decimal]]:
    """Per document: (amount, base amount) settled by payments dated on or before `as_of`."""
    column = PaymentAllocation.invoice_id if kind is INVOICES else PaymentAllocation.bill_id
    rows = db.execute(
        select(column, func.sum(PaymentAllocation.amount), func.sum(PaymentAllocation.base_amount))
        .join(Payment)
        .where(column.is_not(None), Payment.status == "posted", Payment.payment_date <= as_of)
        .group_by(column)
    )
    return {doc_id: (cents(amount), cents(base)) for doc_id, amount, base in rows}


def aged(db: Session, kind: Kind, as_of: date) -> dict[str, Any]:
    table = kind.entity.table
    issued = db.scalars(
        select(table)
        .where(table.status.in_((kind.open_status, "paid")), getattr(table, kind.date_field) <= as_of)
        .order_by(table.due_date, table.id)
    )
    paid = paid_as_of(db, kind, as_of)
    parties: dict[int, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for doc in issued:
        amount_paid, base_paid = paid.get(doc.id, (ZERO, ZERO))
        balance = doc.total - amount_paid
        if balance <= ZERO:
            continue
        base_balance = doc.base_total - base_paid
        days = (as_of - doc.due_date).days
        where = bucket(days)
        party = getattr(doc, kind.party.name)
        rows.append(
            {
                f"{kind.name}_id": doc.id,
                "number": invoice_number(doc.id) if kind is INVOICES else doc.reference,
                kind.party_field: party.id,
                "party": party.name,
                "due_date": doc.due_date.isoformat(),
                "days_overdue": max(days, 0),
                "currency": doc.currency.code,
                "balance": text(balance),
                "base_balance": text(base_balance),
                "bucket": where,
            }
        )
        sums = parties.setdefault(
            party.id, {kind.party_field: party.id, "name": party.name, **{b: ZERO for b in BUCKETS}, "total": ZERO}
        )
        sums[where] += base_balance
        sums["total"] += base_balance
    totals = {b: sum((p[b] for p in parties.values()), ZERO) for b in (*BUCKETS, "total")}
    return {
        "as_of": as_of.isoformat(),
        "currency": base_currency(db).code,
        "buckets": list(BUCKETS),
        kind.party.plural: [
            {k: text(v) if isinstance(v, Decimal) else v for k, v in p.items()}
            for p in parties.values()
        ],
        f"{kind.name}s": rows,
        "totals": {k: text(v) for k, v in totals.items()},
    }


def statement(db: Session, customer: Customer, date_from: date, date_to: date) -> dict[str, Any]:
    """Invoices and payments in each currency the customer deals in, with running balances."""
    invoices = db.scalars(
        select(Invoice)
        .where(Invoice.customer_id == customer.id, Invoice.status.in_(("sent", "paid")), Invoice.issue_date <= date_to)
        .order_by(Invoice.issue_date, Invoice.id)
    )
    payments = db.scalars(
        select(Payment)
        .where(Payment.customer_id == customer.id, Payment.status == "posted", Payment.payment_date <= date_to)
        .order_by(Payment.payment_date, Payment.id)
    )
    events = [(i.issue_date, 0, i.id, i.currency.code, "invoice", invoice_number(i.id), i.total) for i in invoices]
    events += [(p.payment_date, 1, p.id, p.currency.code, "payment", p.reference, -p.amount) for p in payments]
    currencies: dict[str, dict[str, Any]] = {}
    for day, _, record_id, code, kind, reference, amount in sorted(events):
        account = currencies.setdefault(code, {"opening": ZERO, "rows": [], "balance": ZERO})
        account["balance"] += amount
        if day < date_from:
            account["opening"] += amount
            continue
        account["rows"].append(
            {"date": day.isoformat(), "type": kind, "id": record_id, "reference": reference,
             "amount": text(amount), "balance": text(account["balance"])}
        )  # fmt: skip
    return {
        "customer_id": customer.id,
        "customer": customer.name,
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
        "currencies": {
            code: {"opening_balance": text(a["opening"]), "lines": a["rows"], "closing_balance": text(a["balance"])}
            for code, a in currencies.items()
        },
    }

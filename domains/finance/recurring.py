"""Recurring invoice templates: each run turns every occurrence due by a date into a draft
invoice (or a sent one), then moves the template to its next date. The n-th occurrence is
start + n periods, counted from the start, so that month ends never drift."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from dateutil.relativedelta import relativedelta
from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.finance import documents, rates
from domains.finance.document_inputs import DocumentLine, RecurringInvoiceCreate
from domains.finance.document_tables import RecurringInvoice, RecurringInvoiceLine
from domains.finance.entities import CUSTOMER
from domains.finance.serialize import invoice_number
from facade.kit import DomainError, InvalidRequest

STEP = {
    "weekly": relativedelta(weeks=1),
    "monthly": relativedelta(months=1),
    "quarterly": relativedelta(months=3),
    "yearly": relativedelta(years=1),
}
# A template left alone for years would otherwise flood the ledger with drafts in one call.
MAX_PER_RUN = 24


def schedule(template: RecurringInvoice) -> None:
    """Set the next date from the occurrences made so far; None once past the end date."""
    try:
        upcoming: date | None = template.start_date + STEP[template.frequency] * template.occurrences
    except (OverflowError, ValueError):  # past the last date the calendar holds: the template is done
        upcoming = None
    if upcoming is not None and template.end_date is not None and upcoming > template.end_date:
        upcoming = None
    template.next_date = upcoming


def template_lines(db: Session, lines: Sequence[DocumentLine]) -> list[RecurringInvoiceLine]:
    documents.build_lines(db, documents.INVOICES, lines)  # the same checks an invoice line gets, now
    return [
        RecurringInvoiceLine(
            position=position,
            description=line.description,
            quantity=line.quantity,
            unit_price=line.unit_price,
            account_id=line.account_id,
            tax_rate_id=line.tax_rate_id,
        )
        for position, line in enumerate(lines, start=1)
    ]


def check_end(start: date, end: date | None) -> None:
    if end is not None and end < start:
        raise InvalidRequest(f"the end date {end} is before the start date {start}; give a later end date or none")


def create(db: Session, args: RecurringInvoiceCreate) -> RecurringInvoice:
    customer = CUSTOMER.fetch(db, args.customer_id)
    check_end(args.start_date, args.end_date)
    template = RecurringInvoice(
        name=args.name,
        customer_id=customer.id,
        currency=rates.currency_by_code(db, args.currency),
        frequency=args.frequency,
        start_date=args.start_date,
        end_date=args.end_date,
        occurrences=0,
        active=True,
        notes=args.notes,
        lines=template_lines(db, args.lines),
    )
    schedule(template)
    db.add(template)
    db.flush()
    return template


def update(db: Session, template: RecurringInvoice, changes: dict[str, Any]) -> RecurringInvoice:
    if not changes:
        raise InvalidRequest("nothing to change; give at least one of: name, end_date, active, notes, lines")
    cleared = [f for f, v in changes.items() if v is None and f != "end_date"]
    if cleared:
        raise InvalidRequest(f"{', '.join(cleared)} cannot be null; omit a field to keep its current value")
    if "lines" in changes:
        lines = template_lines(db, changes.pop("lines"))
        template.lines = []
        db.flush()
        template.lines = lines
    if "end_date" in changes:
        check_end(template.start_date, changes["end_date"])
    for field, value in changes.items():
        setattr(template, field, value)
    schedule(template)
    db.flush()
    return template


def run(db: Session, as_of: date, send: bool) -> dict[str, Any]:
    """Make every occurrence due on or before `as_of`; a template that fails is reported and
    left where it was, the others go on."""
    due = db.scalars(
        select(RecurringInvoice)
        .where(RecurringInvoice.active.is_(True), RecurringInvoice.next_date <= as_of)
        .order_by(RecurringInvoice.id)
    )
    made: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for template in list(due):
        try:
            while template.next_date is not None and template.next_date <= as_of and len(made) < MAX_PER_RUN:
                invoice = documents.create(
                    db,
                    documents.INVOICES,
                    template.customer_id,
                    template.next_date,
                    documents.copied_lines(template.lines),
                    currency=template.currency,
                    notes=template.notes,
                    recurring_invoice_id=template.id,
                )
                template.occurrences += 1
                schedule(template)
                item: dict[str, Any] = {"recurring_invoice_id": template.id, "invoice_id": invoice.id}
                if send:
                    try:
                        documents.issue(db, documents.INVOICES, invoice)
                    except DomainError as exc:  # the occurrence is made: it stays a draft to fix and send
                        item["send_error"] = str(exc)
                made.append(
                    item
                    | {
                        "number": invoice_number(invoice.id),
                        "issue_date": invoice.issue_date.isoformat(),
                        "status": invoice.status,
                        "total": str(invoice.total),
                    }
                )
        except DomainError as exc:
            failed.append({"recurring_invoice_id": template.id, "error": str(exc)})
    db.flush()
    return {"as_of": as_of.isoformat(), "invoices": made, "failed": failed, "limit_reached": len(made) >= MAX_PER_RUN}

"""Invoices to customers and the recurring templates that make them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement

from domains.finance import document_inputs as di
from domains.finance import documents, rates, recurring
from domains.finance.document_tables import Invoice
from domains.finance.entities import CUSTOMER, INVOICE, RECURRING_INVOICE
from domains.finance.inputs import changes_of
from domains.finance.ledger import today
from facade.kit import CallContext, Toolset, each, records, within_days

tools = Toolset()

Result = dict[str, Any]
INVOICES = documents.INVOICES


@tools.capability(
    "invoice_create",
    example={
        "customer_id": 3,
        "issue_date": "2026-11-12",
        "lines": [
            {"description": "Seasonal menu redesign", "unit_price": "650.00", "account_id": 12, "tax_rate_id": 1}
        ],
    },
)
def invoice_create(ctx: CallContext, args: di.InvoiceCreate) -> Result:
    """Create a draft invoice; totals and tax come from its lines."""
    invoice = documents.create(
        ctx.db,
        INVOICES,
        args.customer_id,
        args.issue_date,
        args.lines,
        due_date=args.due_date,
        currency=rates.currency_by_code(ctx.db, args.currency),
        notes=args.notes,
    )
    return {"invoice": INVOICE.render(invoice)}


records.add_get(tools, INVOICE, example_id=1)


def _invoices_where(args: di.InvoiceFilter) -> list[ColumnElement[bool]]:
    conditions = within_days(Invoice.issue_date, args.date_from, args.date_to)
    if args.overdue:
        conditions += [Invoice.status == "sent", Invoice.due_date < today()]
    return conditions


records.add_list(
    tools,
    INVOICE,
    di.InvoiceFilter,
    example={"status": "sent"},
    where=_invoices_where,
    references={"customer_id": CUSTOMER},
)


@tools.capability(
    "invoice_update",
    idempotent=True,
    example={
        "invoice_id": 5,
        "notes": "Photos delivered as high-resolution JPEGs.",
        "lines": [
            {"description": "Seasonal menu redesign", "unit_price": "650.00", "account_id": 12, "tax_rate_id": 1},
            {"description": "Food photography, half day", "unit_price": "280.00", "account_id": 12, "tax_rate_id": 1},
        ],
    },
)
def invoice_update(ctx: CallContext, args: di.InvoiceUpdate) -> Result:
    """Change a draft invoice, or only the due date and notes of a sent one."""
    invoice = INVOICE.fetch(ctx.db, args.invoice_id)
    changes = changes_of(args, "invoice_id")
    return {"invoice": INVOICE.render(documents.update(ctx.db, INVOICES, invoice, changes))}


@tools.capability("invoice_send", example={"invoice_id": 4})
def invoice_send(ctx: CallContext, args: di.InvoiceRef) -> Result:
    """Send a draft invoice: fix its exchange rate and post it to receivables."""
    invoice = documents.issue(ctx.db, INVOICES, INVOICE.fetch(ctx.db, args.invoice_id))
    return {"invoice": INVOICE.render(invoice)}


@tools.capability("invoice_bulk_send", example={"invoice_ids": [6]})
def invoice_bulk_send(ctx: CallContext, args: di.InvoiceBulkSend) -> Result:
    """Send several draft invoices, reporting each one's result."""

    def send(invoice_id: int) -> Result:
        # Every check runs before an invoice changes, so a failed one is left as it was.
        invoice = documents.issue(ctx.db, INVOICES, INVOICE.fetch(ctx.db, invoice_id))
        return {"total": str(invoice.total)}

    return each(args.invoice_ids, "invoice_id", send)


@tools.capability("invoice_duplicate", example={"invoice_id": 3, "issue_date": "2026-11-20"})
def invoice_duplicate(ctx: CallContext, args: di.InvoiceDuplicate) -> Result:
    """Copy an invoice's customer, currency and lines into a new draft."""
    source = INVOICE.fetch(ctx.db, args.invoice_id)
    return {"invoice": INVOICE.render(documents.duplicate(ctx.db, source, args.issue_date or today()))}


@tools.capability("invoice_void", destructive=True, example={"invoice_id": 3, "void_date": "2026-11-13"})
def invoice_void(ctx: CallContext, args: di.InvoiceVoid) -> Result:
    """Void a sent, unpaid invoice by reversing its journal entry."""
    invoice = INVOICE.fetch(ctx.db, args.invoice_id)
    return {"invoice": INVOICE.render(documents.void(ctx.db, INVOICES, invoice, args.void_date or today()))}


records.add_delete(
    tools, INVOICE, example_id=7, check=documents.check_delete(INVOICES), description="Delete a draft invoice."
)

# Recurring invoice templates


@tools.capability(
    "recurring_invoice_create",
    example={
        "name": "Quarterly brand review",
        "customer_id": 1,
        "frequency": "quarterly",
        "start_date": "2027-01-05",
        "lines": [
            {"description": "Brand review workshop", "unit_price": "1200.00", "account_id": 13, "tax_rate_id": 1}
        ],
    },
)
def recurring_invoice_create(ctx: CallContext, args: di.RecurringInvoiceCreate) -> Result:
    """Create a template that makes an invoice every week, month, quarter or year."""
    return {"recurring_invoice": RECURRING_INVOICE.render(recurring.create(ctx.db, args))}


records.add_list(
    tools, RECURRING_INVOICE, di.RecurringInvoiceFilter, example={}, references={"customer_id": CUSTOMER}
)


@tools.capability(
    "recurring_invoice_update", idempotent=True, example={"recurring_invoice_id": 2, "end_date": "2027-12-31"}
)
def recurring_invoice_update(ctx: CallContext, args: di.RecurringInvoiceUpdate) -> Result:
    """Change a recurring invoice template's name, end date, lines or active flag."""
    template = RECURRING_INVOICE.fetch(ctx.db, args.recurring_invoice_id)
    changes = changes_of(args, "recurring_invoice_id")
    return {"recurring_invoice": RECURRING_INVOICE.render(recurring.update(ctx.db, template, changes))}


@tools.capability("recurring_invoice_run", example={"as_of": "2026-12-01"})
def recurring_invoice_run(ctx: CallContext, args: di.RecurringInvoiceRun) -> Result:
    """Make the invoices of every template due by a date."""
    return recurring.run(ctx.db, args.as_of or today(), args.send)


records.add_delete(
    tools,
    RECURRING_INVOICE,
    example_id=1,
    description="Delete a recurring invoice template; its invoices stay.",
)

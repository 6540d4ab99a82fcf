"""Bills from vendors: entered as drafts, posted to payables, voided when entered in error."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement

from domains.finance import document_inputs as di
from domains.finance import documents, rates
from domains.finance.document_tables import Bill
from domains.finance.entities import BILL, VENDOR
from domains.finance.inputs import changes_of
from domains.finance.ledger import today
from facade.kit import CallContext, Toolset, records, within_days

tools = Toolset()

Result = dict[str, Any]
BILLS = documents.BILLS


@tools.capability(
    "bill_create",
    example={
        "vendor_id": 2,
        "reference": "CW-90417",
        "bill_date": "2026-11-01",
        "currency": "USD",
        "lines": [{"description": "Hosting, November", "unit_price": "240.00", "account_id": 16, "tax_rate_id": 3}],
    },
)
def bill_create(ctx: CallContext, args: di.BillCreate) -> Result:
    """Enter a vendor's bill as a draft; totals and tax come from its lines."""
    bill = documents.create(
        ctx.db,
        BILLS,
        args.vendor_id,
        args.bill_date,
        args.lines,
        due_date=args.due_date,
        currency=rates.currency_by_code(ctx.db, args.currency),
        notes=args.notes,
        reference=args.reference,
    )
    return {"bill": BILL.render(bill)}


records.add_get(tools, BILL, example_id=3)


def _bills_where(args: di.BillFilter) -> list[ColumnElement[bool]]:
    return within_days(Bill.bill_date, args.date_from, args.date_to)


records.add_list(
    tools, BILL, di.BillFilter, example={"status": "posted"}, where=_bills_where, references={"vendor_id": VENDOR}
)


@tools.capability(
    "bill_update", idempotent=True, example={"bill_id": 6, "notes": "Includes the November traffic overage."}
)
def bill_update(ctx: CallContext, args: di.BillUpdate) -> Result:
    """Change a draft bill, or only the due date and notes of a posted one."""
    bill = BILL.fetch(ctx.db, args.bill_id)
    changes = changes_of(args, "bill_id")
    return {"bill": BILL.render(documents.update(ctx.db, BILLS, bill, changes))}


@tools.capability("bill_post", example={"bill_id": 7})
def bill_post(ctx: CallContext, args: di.BillRef) -> Result:
    """Post a draft bill to payables at its date's exchange rate."""
    return {"bill": BILL.render(documents.issue(ctx.db, BILLS, BILL.fetch(ctx.db, args.bill_id)))}


@tools.capability("bill_void", destructive=True, example={"bill_id": 3, "void_date": "2026-11-05"})
def bill_void(ctx: CallContext, args: di.BillVoid) -> Result:
    """Void a posted, unpaid bill by reversing its journal entry."""
    bill = BILL.fetch(ctx.db, args.bill_id)
    return {"bill": BILL.render(documents.void(ctx.db, BILLS, bill, args.void_date or today()))}


records.add_delete(tools, BILL, example_id=5, check=documents.check_delete(BILLS), description="Delete a draft bill.")

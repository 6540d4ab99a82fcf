"""Payments received from customers and made to vendors."""

from __future__ import annotations

from typing import Any

from domains.finance import document_inputs as di
from domains.finance import settlement
from domains.finance.entities import CUSTOMER, PAYMENT, VENDOR
from domains.finance.ledger import today
from facade.kit import CallContext, Toolset, records

tools = Toolset()

Result = dict[str, Any]


# Money leaves or lands on the books: an operator has the last word (approval 2).
@tools.capability(
    "payment_create",
    approval=2,
    example={
        "direction": "made",
        "payment_date": "2026-11-14",
        "amount": "101.15",
        "allocations": [{"document_id": 4, "amount": "101.15"}],
        "reference": "SEPA PS-4471",
    },
)
def payment_create(ctx: CallContext, args: di.PaymentCreate) -> Result:
    """Record a payment received for invoices or made for bills, and post it."""
    return {"payment": PAYMENT.render(settlement.create(ctx.db, args))}


records.add_get(tools, PAYMENT, example_id=1)
records.add_list(
    tools,
    PAYMENT,
    di.PaymentFilter,
    example={"direction": "received"},
    references={"customer_id": CUSTOMER, "vendor_id": VENDOR},
)


@tools.capability("payment_void", destructive=True, example={"payment_id": 3, "void_date": "2026-11-16"})
def payment_void(ctx: CallContext, args: di.PaymentVoid) -> Result:
    """Void a payment: reverse its entry and reopen what it settled."""
    payment = settlement.void(ctx.db, PAYMENT.fetch(ctx.db, args.payment_id), args.void_date or today())
    return {"payment": PAYMENT.render(payment)}

"""The domain's records as data: what each is called, its table, how it renders, and the guard
that freezes it once it is in the books. Lookups and the data-driven tools read these."""

from __future__ import annotations

from sqlalchemy.orm import selectinload

from domains.finance import serialize
from domains.finance.document_tables import Bill, ExpenseClaim, Invoice, Payment, RecurringInvoice
from domains.finance.tables import Account, Budget, Currency, Customer, ExchangeRate, JournalEntry, TaxRate, Vendor
from facade.kit import Conflict, Entity

DOMAIN = "finance"

# Where to go instead of editing a posted entry that a document wrote.
UNDO_TOOL = {
    "invoice": "void the invoice with finance.invoice_void",
    "bill": "void the bill with finance.bill_void",
    "payment": "void the payment with finance.payment_void",
    "expense_claim": "post a correcting entry with finance.journal_entry_create",
}


def entry_is_draft(entry: JournalEntry) -> None:
    """A posted entry is in the books: it never changes, a reversal undoes it."""
    if entry.status == "draft":
        return
    if entry.source == "manual":
        fix = "reverse it with finance.journal_entry_reverse"
    else:
        fix = f"it was written by {entry.source.replace('_', ' ')} {entry.source_id}; {UNDO_TOOL[entry.source]}"
    raise Conflict(f"journal entry {entry.id} is posted and cannot change; {fix}")


def claim_is_draft(claim: ExpenseClaim) -> None:
    if claim.status != "draft":
        raise Conflict(
            f"expense claim {claim.id} is {claim.status} and its cost is booked; only draft claims change or are "
            "deleted — post a correcting entry with finance.journal_entry_create instead"
        )


ACCOUNT: Entity[Account] = Entity(DOMAIN, "account", "accounts", Account)
CURRENCY: Entity[Currency] = Entity(DOMAIN, "currency", "currencies", Currency)
EXCHANGE_RATE: Entity[ExchangeRate] = Entity(
    DOMAIN, "exchange_rate", "exchange_rates", ExchangeRate, render=serialize.exchange_rate
)
TAX_RATE: Entity[TaxRate] = Entity(DOMAIN, "tax_rate", "tax_rates", TaxRate)
CUSTOMER: Entity[Customer] = Entity(DOMAIN, "customer", "customers", Customer)
VENDOR: Entity[Vendor] = Entity(DOMAIN, "vendor", "vendors", Vendor)
JOURNAL_ENTRY: Entity[JournalEntry] = Entity(
    DOMAIN,
    "journal_entry",
    "journal_entries",
    JournalEntry,
    render=serialize.journal_entry,
    guard=entry_is_draft,
    load=(selectinload(JournalEntry.lines), selectinload(JournalEntry.reversals)),
)
INVOICE: Entity[Invoice] = Entity(
    DOMAIN, "invoice", "invoices", Invoice, render=serialize.invoice, load=(selectinload(Invoice.lines),)
)
BILL: Entity[Bill] = Entity(DOMAIN, "bill", "bills", Bill, render=serialize.bill, load=(selectinload(Bill.lines),))
PAYMENT: Entity[Payment] = Entity(
    DOMAIN, "payment", "payments", Payment, render=serialize.payment, load=(selectinload(Payment.allocations),)
)
EXPENSE_CLAIM: Entity[ExpenseClaim] = Entity(
    DOMAIN, "expense_claim", "expense_claims", ExpenseClaim, render=serialize.expense_claim, guard=claim_is_draft
)
RECURRING_INVOICE: Entity[RecurringInvoice] = Entity(
    DOMAIN,
    "recurring_invoice",
    "recurring_invoices",
    RecurringInvoice,
    render=serialize.recurring_invoice,
    load=(selectinload(RecurringInvoice.lines),),
)
BUDGET: Entity[Budget] = Entity(DOMAIN, "budget", "budgets", Budget, render=serialize.budget)

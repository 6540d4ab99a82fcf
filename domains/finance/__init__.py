"""A small business's double-entry ledger: accounts, journal, invoices, bills, payments, reports.

Every example succeeds on a freshly seeded database whichever examples ran before it: each one
that changes, posts, voids, reverses or deletes a record targets one no other example touches
that way. No capability needs a backend beyond the database, so none raises Unavailable on a
seeded one.

Seeded ids (ids are never reused):
- currencies 1-4 (EUR base, USD, GBP, CHF); exchange rates 1-5; tax rates 1-4 (1 VAT 19%,
  2 VAT 7%, 3 zero-rated, 4 inactive, renamed by its update example).
- accounts 1-20: 1 bank (1000), 2 petty cash, 3 receivables, 4 input VAT, 5 equipment,
  6 payables, 7 output VAT, 8 reimbursements, 9 loan, 10-11 equity, 12-14 income (12 design
  services, 14 unused, account_delete's), 15-20 expenses (15 rent, 16 software, 17 travel,
  18 office supplies, 20 renamed by account_update's example).
- customers 1-4 (Acme, Blue Harbor in USD, Café Lumen, 4 never billed, customer_delete's);
  vendors 1-4 (Landmark, Cloudworks, Papeterie Schmidt, 4 never used, vendor_delete's).
- journal entries 1-21, posted but for the drafts 19 (superseded, for deletion), 20 (for
  update) and 21 (for posting); 17 is a manual entry booked to the wrong account, for reversal.
- invoices 1-7: 1 paid, 2 partly paid (USD), 3 sent (voided by its example), 4 a draft to
  send, 5-7 drafts to update, bulk-send and delete; bills 1-7: 1-2 paid, 3 posted (voided by its
  example), 4 posted (paid by payment_create's), 5 a draft quote entered by mistake, for
  deletion, 6-7 drafts to update and post; payments 1-4 (3 voided by its example).
- expense claims 1-5: 1 reimbursed, 2 submitted (reimbursed by its example), 3 a draft to submit,
  4-5 drafts to update and delete; budgets 1-10 (October and November 2026; 10 deleted by its
  example); recurring invoices 1-2, due 2026-12-01 and 2026-11-15 (1 deleted, 2 updated by their
  examples).
"""

from pathlib import Path

from domains.finance import budgets, chart, claims, journal, parties, payments, purchases, reports, sales
from domains.finance.seed import seed
from facade.kit import Domain

domain = Domain(
    "finance",
    description="Double-entry ledger: accounts, journal, invoices, bills, payments, reports.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(
        chart.tools,
        parties.tools,
        journal.tools,
        sales.tools,
        purchases.tools,
        payments.tools,
        claims.tools,
        budgets.tools,
        reports.tools,
    ),
)

__all__ = ["domain"]

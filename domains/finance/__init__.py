"""A small business's double-entry ledger: accounts, journal, invoices, bills, payments, reports.

Every example succeeds on a freshly seeded database whichever examples ran before it: each one
that changes, posts, voids, reverses or deletes a record targets one no other example touches
that way. No capability needs a backend beyond the database, so none raises Unavailable on a
seeded one.

Seeded ids (ids are never reused):
- currencies 1-4 (EUR base, USD, GBP, CHF); exchange rates 1-5; tax rates 1-4 (1 VAT 19%,
  2 VAT 7%, 3 zero-rated, 4 inactive).
- accounts 1-20: 1 bank (1000), 2 petty cash, 3 receivables, 4 input VAT, 5 equipment,
  6 payables, 7 output VAT, 8 reimbursements, 9 loan, 10-11 equity, 12-14 income (12 design
  services), 15-20 expenses (15 rent, 16 software, 17 travel, 18 office supplies).
- customers 1-3 (Acme, Blue Harbor in USD, Café Lumen); vendors 1-3 (Landmark, Cloudworks,
  Papeterie Schmidt).
- journal entries 1-19, posted but for 19 (a superseded draft, for deletion); 17 is a manual
  entry booked to the wrong account, for reversal.
- invoices 1-4: 1 paid, 2 partly paid (USD), 3 sent, 4 a draft to send; bills 1-5: 1-2 paid,
  3-4 posted, 5 a draft quote entered by mistake, for deletion; payments 1-4.
- expense claims 1-3: 1 reimbursed, 2 submitted, 3 a draft; budgets 1-10 (October and November
  2026); recurring invoices 1-2, due 2026-12-01 and 2026-11-15.
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

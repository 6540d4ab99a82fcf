"""The inventory domain and the order of its capabilities.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and must succeed, so a delete comes after the reads of what it deletes and targets a
record an earlier example created for it. No capability needs a backend beyond the database,
so none raises Unavailable.

Seeded ids (ids are never reused):
- categories 1-4 (Fasteners, Electrical, Packaging, Safety); suppliers 1-3
- warehouses 1 MAIN, 2 EAST; locations 1 MAIN/RECV, 2 MAIN/A-01, 3 MAIN/A-02, 4 MAIN/B-01,
  5 EAST/RECV, 6 EAST/A-01
- items 1-10: 7 GLOVE-NITRILE-L tracks lots (lot L2603-A on hand), 9 LABEL-100X150 holds no
  stock, 10 WRAP-17MY is archived
- movements 1-19; purchase orders 1-2 received, 3 partially received, 4 draft (lines 7-8);
  reservations 1-3 active; count 1 open at EAST/A-01 (items 1 and 2)

The core examples then create category 5, location 7, item 11 and purchase order 5 (each
removed again by its own delete example), supplier 4, warehouse 3, movements 20-24 (24 the adjustment
that movement_reverse undoes), reservation 4 and count 2 (cancelled by count_cancel).
"""

from __future__ import annotations

from pathlib import Path

from domains.inventory.seed import seed
from domains.inventory.tools import catalogue, orders, reports, stock
from facade.kit import Domain

domain = Domain(
    "inventory",
    description="Items, warehouses, stock movements, purchase orders, reservations and cycle counts.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# Core: the records, the everyday stock movements and the essential reads.
catalogue.register(domain)
stock.register(domain)
orders.register(domain)
# Full: the workflow steps, corrections, bulk work and reports.
orders.register_full(domain)
stock.register_full(domain)
reports.register(domain)

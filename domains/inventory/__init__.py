"""Items, warehouses and bin locations, stock levels and movements, purchase orders,
reservations and cycle counts.

Every example succeeds on a freshly seeded database whichever examples ran before it; none
needs a backend beyond the database. Seeded ids (ids are never reused):
- categories 1-5 (Fasteners, Electrical, Packaging, Safety; 5 holds no item, category_delete's);
  suppliers 1-4 (4 supplier_update's); warehouses 1 MAIN, 2 EAST, 3 SOUTH (empty, for
  warehouse_update and location_bulk_create); locations 1 MAIN/RECV, 2 MAIN/A-01, 3 MAIN/A-02,
  4 MAIN/B-01, 5 EAST/RECV, 6 EAST/A-01, 7 MAIN/Z-99 (empty, location_delete's)
- items 1-12: 7 GLOVE-NITRILE-L tracks lots (lot L2603-A on hand), 9 LABEL-100X150 holds no
  stock, 10 WRAP-17MY is archived, 11 and 12 hold no stock (item_update's and item_delete's)
- movements; purchase orders 1-2 received, 3 partially received, 4 draft (lines 7-8), 5 a
  draft for purchase_order_delete, 6 placed for purchase_order_receive; reservations 1-3
  active; counts 1 open at EAST/A-01 (items 1 and 2), 2 open for count_cancel, 3 counted for
  count_apply.
"""

from pathlib import Path

from domains.inventory import bulk, catalogue, history, orders, reports, stock
from domains.inventory.seed import seed
from facade.kit import Domain

domain = Domain(
    "inventory",
    description="Items, warehouses, stock movements, purchase orders, reservations and cycle counts.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    # Core first: the records, the everyday stock movements and the essential reads; then the
    # workflow steps, corrections, archiving, bulk work and reports.
    toolsets=(
        catalogue.tools,
        stock.tools,
        orders.tools,
        orders.full_tools,
        stock.full_tools,
        catalogue.full_tools,
        bulk.tools,
        reports.tools,
        history.tools,
    ),
)

__all__ = ["domain"]

"""The domain's entities as data: what each is called, its table and how it renders. The
data-driven get/list/update/delete of facade.kit.records and every lookup by id read these."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import selectinload

from domains.inventory import serialize
from domains.inventory.tables import (
    Category,
    Count,
    Item,
    Location,
    Movement,
    PurchaseOrder,
    Reservation,
    Supplier,
    Warehouse,
)
from facade.kit import Entity

DOMAIN = "inventory"

CATEGORY: Entity[Category] = Entity(DOMAIN, "category", "categories", Category, serialize.category)
SUPPLIER: Entity[Supplier] = Entity(DOMAIN, "supplier", "suppliers", Supplier, serialize.supplier)
WAREHOUSE: Entity[Warehouse] = Entity(
    DOMAIN, "warehouse", "warehouses", Warehouse, serialize.warehouse, load=(selectinload(Warehouse.locations),)
)
LOCATION: Entity[Location] = Entity(DOMAIN, "location", "locations", Location, serialize.location)
ITEM: Entity[Item] = Entity(DOMAIN, "item", "items", Item, serialize.item)
MOVEMENT: Entity[Movement] = Entity(DOMAIN, "movement", "movements", Movement, serialize.movement)
PURCHASE_ORDER: Entity[PurchaseOrder] = Entity(
    DOMAIN,
    "purchase_order",
    "purchase_orders",
    PurchaseOrder,
    serialize.purchase_order,
    load=(selectinload(PurchaseOrder.lines),),
)
RESERVATION: Entity[Reservation] = Entity(DOMAIN, "reservation", "reservations", Reservation, serialize.reservation)
COUNT: Entity[Count] = Entity(
    DOMAIN, "count", "counts", Count, serialize.count_summary, load=(selectinload(Count.lines),)
)

# Filter fields that name a record: a list filtered by a missing record says so instead of
# answering with an empty page a model would misread as "none yet".
REFERENCES: dict[str, Entity[Any]] = {
    "category_id": CATEGORY,
    "supplier_id": SUPPLIER,
    "warehouse_id": WAREHOUSE,
    "location_id": LOCATION,
    "item_id": ITEM,
}

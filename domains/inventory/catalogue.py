"""Capabilities of the catalogue: categories, suppliers, warehouses, locations and items.
Plain records are data-driven (facade.kit.records); the item's reads are written out because they
carry its stock."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, or_, select

from domains.inventory import inputs, levels, rules, serialize
from domains.inventory.entities import CATEGORY, ITEM, LOCATION, REFERENCES, SUPPLIER, WAREHOUSE
from domains.inventory.tables import Item, Stock
from facade.kit import CallContext, Page, Toolset, contains_text, records

Result = dict[str, Any]
tools = Toolset()
full_tools = Toolset()  # archiving, listed with the other full-tier tools


def _items_where(args: inputs.ItemFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if not args.include_archived:
        conditions.append(Item.archived_at.is_(None))
    if args.query is not None:
        conditions.append(or_(contains_text(Item.sku, args.query), contains_text(Item.name, args.query)))
    if args.below_reorder:
        on_hand = select(func.coalesce(func.sum(Stock.on_hand), 0)).where(Stock.item_id == Item.id).scalar_subquery()
        conditions.append(on_hand <= Item.reorder_point)
    return conditions


records.add_create(
    tools,
    CATEGORY,
    inputs.CategoryCreate,
    example={"name": "Tools", "description": "Hand and power tools for the workshop."},
    check=rules.check_category_create,
)
records.add_list(tools, CATEGORY, Page, example={}, description="List item categories.")
records.add_update(
    tools,
    CATEGORY,
    inputs.CategoryUpdate,
    example={"category_id": 3, "description": "Cartons, tape and void fill."},
    check=rules.check_category_update,
)
records.add_delete(
    tools,
    CATEGORY,
    example_id=5,
    check=rules.on_category_delete,
    description="Delete a category; its items stay, uncategorised.",
)

records.add_create(
    tools,
    SUPPLIER,
    inputs.SupplierCreate,
    example={"name": "Hansa Safety Supply", "email": "orders@hansa-safety.example", "lead_time_days": 4},
    check=rules.check_supplier_create,
)
records.add_get(tools, SUPPLIER, example_id=1)
records.add_list(tools, SUPPLIER, Page, example={}, description="List suppliers.")
records.add_update(
    tools,
    SUPPLIER,
    inputs.SupplierUpdate,
    example={"supplier_id": 3, "phone": "+49 30 555 0199"},
    check=rules.check_supplier_update,
)

records.add_create(
    tools,
    WAREHOUSE,
    inputs.WarehouseCreate,
    example={"code": "NORTH", "name": "North depot", "address": "Hafenstrasse 2, 24103 Kiel"},
    check=rules.check_warehouse_create,
)
records.add_list(tools, WAREHOUSE, Page, example={}, description="List warehouses with their locations.")
records.add_update(
    tools,
    WAREHOUSE,
    inputs.WarehouseUpdate,
    example={"warehouse_id": 2, "name": "East depot Leipzig"},
    check=rules.check_warehouse_update,
)

records.add_create(
    tools,
    LOCATION,
    inputs.LocationCreate,
    example={"warehouse_id": 1, "code": "C-01", "description": "Aisle C, bay 1"},
    check=rules.check_location_create,
    references={"warehouse_id": WAREHOUSE},
    description="Create a bin location in a warehouse.",
)
records.add_list(
    tools,
    LOCATION,
    inputs.LocationFilter,
    example={"warehouse_id": 1},
    references=REFERENCES,
    description="List bin locations, optionally of one warehouse.",
)
records.add_delete(
    tools,
    LOCATION,
    example_id=7,
    check=rules.on_location_delete,
    description="Delete a location that never held stock.",
)

records.add_create(
    tools,
    ITEM,
    inputs.ItemCreate,
    example={
        "sku": "DRILL-BIT-8MM",
        "name": "HSS drill bit 8 mm",
        "unit": "pcs",
        "category_id": 1,
        "supplier_id": 1,
        "unit_cost": 1.35,
        "reorder_point": 20,
        "reorder_quantity": 50,
    },
    check=rules.check_item_create,
    references={"category_id": CATEGORY, "supplier_id": SUPPLIER},
    description="Create a stock item (SKU).",
)


@tools.capability("item_get", read_only=True, example={"item_id": 1})
def item_get(ctx: CallContext, args: inputs.ItemRef) -> dict[str, Any]:
    """Get an item with its stock per location and its totals."""
    return levels.item_detail(ctx.db, ITEM.fetch(ctx.db, args.item_id))

records.add_list(
    tools,
    ITEM,
    inputs.ItemFilter,
    example={"category_id": 2},
    where=_items_where,
    references=REFERENCES,
    description="List items, optionally filtered.",
)
records.add_update(
    tools,
    ITEM,
    inputs.ItemUpdate,
    example={"item_id": 4, "reorder_point": 25},
    check=rules.check_item_update,
    description="Change some fields of an item.",
)
records.add_delete(
    tools,
    ITEM,
    example_id=11,
    check=rules.on_item_delete,
    description="Delete an item that has no stock history.",
)


@full_tools.capability("item_archive", idempotent=True, example={"item_id": 9})
def item_archive(ctx: CallContext, args: inputs.ItemRef) -> Result:
    """Archive an item with no stock, hiding it and refusing new stock for it."""
    item = ITEM.fetch(ctx.db, args.item_id)
    changed = rules.set_archived(ctx.db, item, True)
    return {"item": serialize.item(item), "changed": changed}


@full_tools.capability("item_unarchive", idempotent=True, example={"item_id": 10})
def item_unarchive(ctx: CallContext, args: inputs.ItemRef) -> Result:
    """Unarchive an item so that it can be stocked again."""
    item = ITEM.fetch(ctx.db, args.item_id)
    changed = rules.set_archived(ctx.db, item, False)
    return {"item": serialize.item(item), "changed": changed}

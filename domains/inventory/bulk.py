"""Operations over many records at once. Each entry succeeds or fails on its own and the result
reports every entry, so that one bad line does not sink the other ninety-nine; a failed entry
changes nothing, because every check runs before the entry touches anything."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.inventory import inputs, ledger, rules, serialize
from domains.inventory.entities import CATEGORY, ITEM, LOCATION, SUPPLIER, WAREHOUSE
from domains.inventory.inputs import AdjustLine, ItemCreate
from domains.inventory.tables import Item, Location, Warehouse
from facade.kit import CallContext, Conflict, Toolset, each

Result = dict[str, Any]
tools = Toolset()


def import_items(db: Session, rows: list[ItemCreate], update_existing: bool) -> dict[str, Any]:
    def one(index: int) -> dict[str, Any]:
        row = rows[index]
        values = row.model_dump()
        if row.category_id is not None:
            CATEGORY.fetch(db, row.category_id)
        if row.supplier_id is not None:
            SUPPLIER.fetch(db, row.supplier_id)
        existing = db.scalar(select(Item).where(Item.sku == row.sku))
        if existing is None:
            item = Item(**values)
            db.add(item)
            db.flush()
            return {"sku": row.sku, "item_id": item.id, "action": "created"}
        if not update_existing:
            raise Conflict(f"item {existing.id} already has the SKU {row.sku}; pass update_existing=true to update it")
        # Only what the row states changes: a default (unit_cost 0) must not overwrite a value.
        stated = row.model_dump(exclude_unset=True)
        changes = {k: v for k, v in stated.items() if k != "sku" and v != getattr(existing, k)}
        rules.check_item_update(db, existing, changes)
        for field, value in changes.items():
            setattr(existing, field, value)
        db.flush()
        return {"sku": row.sku, "item_id": existing.id, "action": "updated" if changes else "unchanged"}

    return each(range(len(rows)), "index", one)


def adjust(db: Session, lines: list[AdjustLine], reason: str, created_by: str) -> dict[str, Any]:
    def one(index: int) -> dict[str, Any]:
        line = lines[index]
        item, location = ITEM.fetch(db, line.item_id), LOCATION.fetch(db, line.location_id)
        movement = ledger.adjust(db, item, location, line.lot, line.quantity, reason=reason, created_by=created_by)
        return {
            "movement_id": movement.id,
            "on_hand": serialize.num(ledger.on_hand(db, item.id, location.id, movement.lot)),
        }

    return each(range(len(lines)), "index", one)


def create_locations(db: Session, warehouse: Warehouse, codes: list[str], description: str) -> dict[str, Any]:
    def one(code: str) -> dict[str, Any]:
        rules.check_location_create(db, {"warehouse_id": warehouse.id, "code": code})
        location = Location(warehouse=warehouse, code=code, description=description)
        db.add(location)
        db.flush()
        return {"location_id": location.id, "label": location.label}

    # A code listed twice is reported twice: created once, then refused as taken.
    return each(codes, "code", one, distinct=False)


@tools.capability(
    "location_bulk_create",
    example={"warehouse_id": 2, "codes": ["B-01", "B-02", "B-03"], "description": "Aisle B"},
)
def location_bulk_create(ctx: CallContext, args: inputs.LocationBulkCreate) -> Result:
    """Create many bin locations in a warehouse, reporting each one's result."""
    warehouse = WAREHOUSE.fetch(ctx.db, args.warehouse_id)
    return create_locations(ctx.db, warehouse, args.codes, args.description)


@tools.capability(
    "item_bulk_import",
    example={
        "items": [
            {
                "sku": "WASHER-M8",
                "name": "Flat washer M8, zinc plated",
                "unit": "pcs",
                "category_id": 1,
                "supplier_id": 1,
                "unit_cost": 0.02,
                "reorder_point": 500,
                "reorder_quantity": 2000,
            },
            {"sku": "NUT-M8", "name": "Hex nut M8, zinc plated", "unit": "pcs", "reorder_point": 800},
        ],
        "update_existing": True,
    },
)
def item_bulk_import(ctx: CallContext, args: inputs.ItemBulkImport) -> Result:
    """Create or update many items by SKU, reporting each one's result."""
    return import_items(ctx.db, args.items, args.update_existing)


@tools.capability(
    "stock_bulk_adjust",
    example={
        "lines": [
            {"item_id": 5, "location_id": 5, "quantity": -3},
            {"item_id": 8, "location_id": 4, "quantity": 1},
        ],
        "reason": "Spot check after the inventory walk",
    },
)
def stock_bulk_adjust(ctx: CallContext, args: inputs.StockBulkAdjust) -> Result:
    """Correct many stock levels with one reason, reporting each line's result."""
    return adjust(ctx.db, args.lines, args.reason, created_by=ctx.agent)

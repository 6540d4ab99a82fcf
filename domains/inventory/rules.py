"""The catalogue's rules, each written once: names and codes are unique (case-insensitively),
a record with stock history is never deleted (it is archived instead), and what gives stock
its meaning — an item's unit, its lot tracking, its average cost — cannot change under stock
already on hand."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from domains.inventory import ledger
from domains.inventory.entities import CATEGORY, SUPPLIER
from domains.inventory.serialize import num
from domains.inventory.tables import (
    OPEN_ORDER,
    Category,
    Count,
    CountLine,
    Item,
    Location,
    Movement,
    PurchaseOrder,
    PurchaseOrderLine,
    Reservation,
    Stock,
    Supplier,
    Warehouse,
)
from facade.kit import Conflict, utcnow


def _free(
    db: Session,
    column: InstrumentedAttribute[str],
    value: str,
    what: str,
    except_id: int | None,
    *scope: ColumnElement[bool],
) -> None:
    table = column.class_
    clash = db.scalar(select(table.id).where(func.lower(column) == value.lower(), table.id != (except_id or 0), *scope))
    if clash is not None:
        raise Conflict(f"{what} {clash} already has the {column.key} {value!r}; choose another {column.key}")


def _count(db: Session, *conditions: ColumnElement[bool]) -> int:
    return db.scalar(select(func.count()).where(*conditions)) or 0


# Create and update checks, run by facade.kit.records before the record is written.


def check_category_create(db: Session, values: dict[str, Any]) -> None:
    _free(db, Category.name, values["name"], "category", None)


def check_category_update(db: Session, category: Category, changes: dict[str, Any]) -> None:
    if "name" in changes:
        _free(db, Category.name, changes["name"], "category", category.id)


def check_supplier_create(db: Session, values: dict[str, Any]) -> None:
    _free(db, Supplier.name, values["name"], "supplier", None)


def check_supplier_update(db: Session, supplier: Supplier, changes: dict[str, Any]) -> None:
    if "name" in changes:
        _free(db, Supplier.name, changes["name"], "supplier", supplier.id)


def check_warehouse_create(db: Session, values: dict[str, Any]) -> None:
    _free(db, Warehouse.code, values["code"], "warehouse", None)


def check_warehouse_update(db: Session, warehouse: Warehouse, changes: dict[str, Any]) -> None:
    if "code" in changes:
        _free(db, Warehouse.code, changes["code"], "warehouse", warehouse.id)


def check_location_create(db: Session, values: dict[str, Any]) -> None:
    in_warehouse = Location.warehouse_id == values["warehouse_id"]
    _free(db, Location.code, values["code"], f"warehouse {values['warehouse_id']}: location", None, in_warehouse)


def check_item_create(db: Session, values: dict[str, Any]) -> None:
    _free(db, Item.sku, values["sku"], "item", None)


def check_item_update(db: Session, item: Item, changes: dict[str, Any]) -> None:
    if "sku" in changes:
        _free(db, Item.sku, changes["sku"], "item", item.id)
    if changes.get("category_id") is not None:
        CATEGORY.fetch(db, changes["category_id"])
    if changes.get("supplier_id") is not None:
        SUPPLIER.fetch(db, changes["supplier_id"])
    has_history = _count(db, Movement.item_id == item.id) > 0
    for field in ("unit", "track_lots"):
        if field in changes and changes[field] != getattr(item, field) and has_history:
            raise Conflict(
                f"item {item.id} ({item.sku}) has stock movements in {item.unit}"
                f"{' by lot' if item.track_lots else ''}; its {field} cannot change under them. "
                "Create a new item with inventory.item_create instead"
            )
    on_hand = ledger.total_on_hand(db, item.id)
    if "unit_cost" in changes and changes["unit_cost"] != item.unit_cost and on_hand > 0:
        raise Conflict(
            f"item {item.id} ({item.sku}) has {num(on_hand)} {item.unit} on hand valued at the moving average "
            f"{num(item.unit_cost)}; its cost follows receipts and cannot be set while stock is on hand"
        )


# Delete checks: refuse what would orphan history, and report what else a delete touched.


def on_category_delete(db: Session, category: Category) -> dict[str, Any]:
    items = db.scalars(select(Item.id).where(Item.category_id == category.id).order_by(Item.id))
    return {"uncategorised_item_ids": list(items)}


def on_location_delete(db: Session, location: Location) -> dict[str, Any]:
    return _unused(
        f"location {location.id} ({location.label})",
        {
            "stock levels": _count(db, Stock.location_id == location.id),
            "movements": _count(db, Movement.location_id == location.id),
            "reservations": _count(db, Reservation.location_id == location.id),
            "cycle counts": _count(db, Count.location_id == location.id),
        },
        "only a location that never held stock can be deleted. "
        "Move its stock with inventory.stock_transfer and keep the location for the history",
    )


def on_item_delete(db: Session, item: Item) -> dict[str, Any]:
    return _unused(
        f"item {item.id} ({item.sku})",
        {
            "movements": _count(db, Movement.item_id == item.id),
            "purchase order lines": _count(db, PurchaseOrderLine.item_id == item.id),
            "reservations": _count(db, Reservation.item_id == item.id),
            "count lines": _count(db, CountLine.item_id == item.id),
        },
        "an item with history is archived, not deleted (inventory.item_archive)",
    )


def _unused(record: str, uses: dict[str, int], instead: str) -> dict[str, Any]:
    """Refuse to delete a record that history still refers to, counting what does."""
    used = ", ".join(f"{n} {what}" for what, n in uses.items() if n)
    if used:
        raise Conflict(f"{record} has {used}; {instead}")
    return {}


def on_order_delete(db: Session, order: PurchaseOrder) -> dict[str, Any]:
    if order.status != "draft":
        raise Conflict(
            f"purchase order {order.id} is {order.status}; only drafts can be deleted. "
            "Cancel it with inventory.purchase_order_cancel instead"
        )
    return {"deleted_lines": len(order.lines)}


# Archiving


def set_archived(db: Session, item: Item, archived: bool) -> bool:
    """Archive (only with nothing on hand, reserved or on order) or unarchive; False when the
    item already is in that state."""
    if (item.archived_at is not None) == archived:
        return False
    if archived:
        on_hand = ledger.total_on_hand(db, item.id)
        held = _count(db, Reservation.item_id == item.id, Reservation.status == "active")
        open_lines = _count(
            db,
            PurchaseOrderLine.item_id == item.id,
            PurchaseOrderLine.purchase_order_id == PurchaseOrder.id,
            PurchaseOrder.status.in_(("draft", *OPEN_ORDER)),
        )
        if on_hand > 0 or held or open_lines:
            raise Conflict(
                f"item {item.id} ({item.sku}) still has {num(on_hand)} {item.unit} on hand, {held} active "
                f"reservations and {open_lines} open purchase order lines; issue or adjust the stock, release "
                "the reservations and cancel the orders before archiving it"
            )
    item.archived_at = utcnow() if archived else None
    db.flush()
    return True

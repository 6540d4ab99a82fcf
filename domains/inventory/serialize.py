"""Records as JSON-friendly dicts. Quantities, costs and values are decimal strings ("12.5"),
never floats, so that a model copying one back passes exactly what the books hold."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from domains.inventory.tables import (
    Category,
    Count,
    Item,
    Location,
    Movement,
    PurchaseOrder,
    PurchaseOrderLine,
    Reservation,
    Supplier,
    Warehouse,
)
from facade.kit import iso

THOUSANDTH = Decimal("0.001")
CENT = Decimal("0.01")
COST_STEP = Decimal("0.0001")


def qty(value: Decimal) -> Decimal:
    """A quantity at the database's precision (SQLite hands back binary floats)."""
    return Decimal(value).quantize(THOUSANDTH, ROUND_HALF_UP)


def cost(value: Decimal) -> Decimal:
    return Decimal(value).quantize(COST_STEP, ROUND_HALF_UP)


def num(value: Decimal | None) -> str | None:
    """'12.5', '1100', '0.1225': a decimal without trailing zeros or an exponent."""
    if value is None:
        return None
    text = format(Decimal(value).normalize(), "f")
    return "0" if text in ("-0", "") else text


def money(value: Decimal) -> str:
    return format(Decimal(value).quantize(CENT, ROUND_HALF_UP), "f")


def order_number(order_id: int) -> str:
    return f"PO-{order_id:05d}"


def category(c: Category) -> dict[str, Any]:
    return {"id": c.id, "name": c.name, "description": c.description, "updated_at": iso(c.updated_at)}


def supplier(s: Supplier) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "email": s.email,
        "phone": s.phone,
        "lead_time_days": s.lead_time_days,
        "notes": s.notes,
        "updated_at": iso(s.updated_at),
    }


def warehouse(w: Warehouse) -> dict[str, Any]:
    return {
        "id": w.id,
        "code": w.code,
        "name": w.name,
        "address": w.address,
        "locations": [{"id": loc.id, "code": loc.code} for loc in w.locations],
    }


def location(loc: Location) -> dict[str, Any]:
    return {
        "id": loc.id,
        "warehouse_id": loc.warehouse_id,
        "code": loc.code,
        "label": loc.label,
        "description": loc.description,
    }


def item(i: Item) -> dict[str, Any]:
    return {
        "id": i.id,
        "sku": i.sku,
        "name": i.name,
        "description": i.description,
        "category_id": i.category_id,
        "supplier_id": i.supplier_id,
        "unit": i.unit,
        "unit_cost": num(i.unit_cost),
        "reorder_point": num(i.reorder_point),
        "reorder_quantity": num(i.reorder_quantity),
        "track_lots": i.track_lots,
        "archived": i.archived_at is not None,
        "updated_at": iso(i.updated_at),
    }


def level(item_id: int, sku: str, loc: Location, lot: str, on_hand: Decimal, reserved: Decimal) -> dict[str, Any]:
    return {
        "item_id": item_id,
        "sku": sku,
        "location_id": loc.id,
        "location": loc.label,
        "lot": lot,
        "on_hand": num(on_hand),
        "reserved": num(reserved),
        "available": num(on_hand - reserved),
    }


def movement(m: Movement) -> dict[str, Any]:
    return {
        "id": m.id,
        "kind": m.kind,
        "item_id": m.item_id,
        "sku": m.item.sku,
        "location_id": m.location_id,
        "location": m.location.label,
        "lot": m.lot,
        "quantity": num(m.quantity),
        "unit_cost": num(m.unit_cost),
        "value": money(qty(m.quantity) * cost(m.unit_cost)),
        "reason": m.reason,
        "reference": m.reference,
        "po_line_id": m.po_line_id,
        "reservation_id": m.reservation_id,
        "count_id": m.count_id,
        "pair_id": m.pair_id,
        "reverses_id": m.reverses_id,
        "created_by": m.created_by,
        "occurred_at": iso(m.occurred_at),
    }


def order_line(line: PurchaseOrderLine) -> dict[str, Any]:
    return {
        "id": line.id,
        "item_id": line.item_id,
        "sku": line.item.sku,
        "quantity": num(line.quantity),
        "received_quantity": num(line.received_quantity),
        "outstanding": num(qty(line.quantity) - qty(line.received_quantity)),
        "unit_cost": num(line.unit_cost),
        "line_total": money(qty(line.quantity) * cost(line.unit_cost)),
    }


def purchase_order(po: PurchaseOrder) -> dict[str, Any]:
    return {
        "id": po.id,
        "number": order_number(po.id),
        "supplier_id": po.supplier_id,
        "supplier": po.supplier.name,
        "status": po.status,
        "expected_date": iso(po.expected_date),
        "notes": po.notes,
        "lines": [order_line(line) for line in po.lines],
        "total": money(sum((qty(x.quantity) * cost(x.unit_cost) for x in po.lines), Decimal(0))),
        "ordered_at": iso(po.ordered_at),
        "closed_at": iso(po.closed_at),
        "created_at": iso(po.created_at),
    }


def reservation(r: Reservation) -> dict[str, Any]:
    return {
        "id": r.id,
        "item_id": r.item_id,
        "sku": r.item.sku,
        "location_id": r.location_id,
        "location": r.location.label,
        "lot": r.lot,
        "quantity": num(r.quantity),
        "reference": r.reference,
        "status": r.status,
        "created_by": r.created_by,
        "created_at": iso(r.created_at),
        "closed_at": iso(r.closed_at),
    }


def count_summary(c: Count) -> dict[str, Any]:
    counted = sum(1 for line in c.lines if line.counted_quantity is not None)
    return {
        "id": c.id,
        "location_id": c.location_id,
        "location": c.location.label,
        "status": c.status,
        "note": c.note,
        "lines": len(c.lines),
        "counted": counted,
        "created_at": iso(c.created_at),
        "applied_at": iso(c.applied_at),
    }

"""Reports over current stock: what it is worth, what to reorder, and what has stopped moving."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from domains.inventory import inputs_flow
from domains.inventory.entities import CATEGORY, SUPPLIER, WAREHOUSE
from domains.inventory.inputs_flow import DeadStockReport, ReorderReport, ValuationReport
from domains.inventory.levels import in_warehouse, on_order
from domains.inventory.serialize import cost, iso, money, num, qty
from domains.inventory.tables import Item, Movement, Reservation, Stock, Supplier
from facade.kit import CallContext, Toolset

Result = dict[str, Any]
tools = Toolset()

ZERO = Decimal(0)
OUTBOUND = ("issue", "transfer_out")


def day_end(day: date) -> datetime:
    """The first instant after `day` (UTC): "as of a date" includes the whole day."""
    return datetime.combine(day + timedelta(days=1), time.min, UTC)


def page(rows: Sequence[dict[str, Any]], limit: int, offset: int) -> list[dict[str, Any]]:
    return list(rows[offset : offset + limit])


def _per_item(db: Session, column: Any, *conditions: ColumnElement[bool]) -> dict[int, Decimal]:
    query = select(column.class_.item_id, func.sum(column)).where(*conditions).group_by(column.class_.item_id)
    return {item_id: qty(total) for item_id, total in db.execute(query)}


def valuation(db: Session, args: ValuationReport) -> dict[str, Any]:
    """Quantity on hand × moving average cost, per item."""
    conditions: list[ColumnElement[bool]] = []
    if args.warehouse_id is not None:
        conditions.append(in_warehouse(WAREHOUSE.fetch(db, args.warehouse_id).id))
    if args.category_id is not None:
        category = CATEGORY.fetch(db, args.category_id)
        conditions.append(Stock.item_id.in_(select(Item.id).where(Item.category_id == category.id)))
    on_hand = {i: q for i, q in _per_item(db, Stock.on_hand, *conditions).items() if q > 0}
    items = db.scalars(select(Item).where(Item.id.in_(on_hand)).order_by(Item.sku)).all()
    rows = [
        {
            "item_id": item.id,
            "sku": item.sku,
            "name": item.name,
            "unit": item.unit,
            "on_hand": num(on_hand[item.id]),
            "unit_cost": num(item.unit_cost),
            "value": money(on_hand[item.id] * cost(item.unit_cost)),
        }
        for item in items
    ]
    total = sum((on_hand[i.id] * cost(i.unit_cost) for i in items), ZERO)
    return {
        "method": "moving_average",
        "items": page(rows, args.limit, args.offset),
        "total": len(rows),
        "total_value": money(total),
    }


def reorder(db: Session, args: ReorderReport) -> dict[str, Any]:
    """Items whose position (on hand − reserved + on order) is at or below the reorder point,
    with the quantity to order: the reorder quantity, or the gap to the point if larger."""
    conditions: list[ColumnElement[bool]] = [Item.archived_at.is_(None), Item.reorder_point > 0]
    if args.supplier_id is not None:
        conditions.append(Item.supplier_id == SUPPLIER.fetch(db, args.supplier_id).id)
    items = db.scalars(select(Item).where(*conditions).order_by(Item.sku)).all()
    on_hand = _per_item(db, Stock.on_hand)
    held = _per_item(db, Reservation.quantity, Reservation.status == "active")
    ordered = on_order(db)
    suppliers = {s.id: s for s in db.scalars(select(Supplier))}
    rows = []
    for item in items:
        have, reserved, coming = on_hand.get(item.id, ZERO), held.get(item.id, ZERO), ordered.get(item.id, ZERO)
        position, point = have - reserved + coming, qty(item.reorder_point)
        if position > point:
            continue
        suggested = max(qty(item.reorder_quantity), point - position)
        supplier = suppliers.get(item.supplier_id) if item.supplier_id else None
        rows.append(
            {
                "item_id": item.id,
                "sku": item.sku,
                "name": item.name,
                "on_hand": num(have),
                "reserved": num(reserved),
                "on_order": num(coming),
                "position": num(position),
                "reorder_point": num(point),
                "suggested_quantity": num(suggested),
                "estimated_cost": money(suggested * cost(item.unit_cost)),
                "supplier_id": supplier.id if supplier else None,
                "supplier": supplier.name if supplier else None,
                "lead_time_days": supplier.lead_time_days if supplier else None,
            }
        )
    return {"suggestions": page(rows, args.limit, args.offset), "total": len(rows)}


def dead_stock(db: Session, args: DeadStockReport) -> dict[str, Any]:
    """Items on hand (as of the day) with no outbound movement for `days` days; stock that never
    went out counts as idle from its first movement."""
    as_of = args.as_of or datetime.now(UTC).date()
    end = day_end(as_of)
    cutoff = end - timedelta(days=args.days)
    on_hand = {i: q for i, q in _per_item(db, Movement.quantity, Movement.occurred_at < end).items() if q > 0}
    last_out = dict(
        db.execute(
            select(Movement.item_id, func.max(Movement.occurred_at))
            .where(Movement.kind.in_(OUTBOUND), Movement.occurred_at < end)
            .group_by(Movement.item_id)
        ).all()
    )
    first_in = dict(
        db.execute(
            select(Movement.item_id, func.min(Movement.occurred_at))
            .where(Movement.occurred_at < end)
            .group_by(Movement.item_id)
        ).all()
    )
    items = db.scalars(select(Item).where(Item.id.in_(on_hand)).order_by(Item.sku)).all()
    rows = []
    for item in items:
        idle_since = _utc(last_out.get(item.id) or first_in[item.id])
        if idle_since >= cutoff:
            continue
        rows.append(
            {
                "item_id": item.id,
                "sku": item.sku,
                "name": item.name,
                "on_hand": num(on_hand[item.id]),
                "value": money(on_hand[item.id] * cost(item.unit_cost)),
                "last_outbound_at": iso(_utc(last_out[item.id])) if item.id in last_out else None,
                "idle_days": (end - idle_since).days,
            }
        )
    rows.sort(key=lambda r: -r["idle_days"])
    total_value = sum((Decimal(r["value"]) for r in rows), ZERO)
    return {
        "as_of": as_of.isoformat(),
        "days": args.days,
        "items": page(rows, args.limit, args.offset),
        "total": len(rows),
        "total_value": money(total_value),
    }


def _utc(value: datetime) -> datetime:
    """Aggregates bypass the column type, so SQLite's naive timestamps come back naive."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@tools.capability("valuation_report", read_only=True, example={})
def valuation_report(ctx: CallContext, args: inputs_flow.ValuationReport) -> Result:
    """Value stock on hand per item at its moving average cost."""
    return valuation(ctx.db, args)


@tools.capability("reorder_report", read_only=True, example={})
def reorder_report(ctx: CallContext, args: inputs_flow.ReorderReport) -> Result:
    """Suggest what to reorder: items at or below their reorder point, counting open orders."""
    return reorder(ctx.db, args)


@tools.capability("dead_stock_report", read_only=True, example={"days": 90})
def dead_stock_report(ctx: CallContext, args: inputs_flow.DeadStockReport) -> Result:
    """Find stock on hand that has not gone out for a number of days."""
    return dead_stock(ctx.db, args)

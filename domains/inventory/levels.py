"""Reading stock: levels with what is reserved and available, and an item with its stock."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from domains.inventory import ledger, serialize
from domains.inventory.entities import ITEM, LOCATION, WAREHOUSE
from domains.inventory.inputs import StockFilter
from domains.inventory.serialize import money, num, qty
from domains.inventory.tables import OPEN_ORDER, Item, Location, PurchaseOrder, PurchaseOrderLine, Reservation, Stock

Key = tuple[int, int, str]
ZERO = Decimal(0)


def reserved_by_level(db: Session, stocks: Sequence[Stock]) -> dict[Key, Decimal]:
    """Active reservations summed per item × location × lot, for the levels given (one query)."""
    if not stocks:
        return {}
    rows = db.execute(
        select(Reservation.item_id, Reservation.location_id, Reservation.lot, func.sum(Reservation.quantity))
        .where(
            Reservation.status == "active",
            Reservation.item_id.in_({s.item_id for s in stocks}),
            Reservation.location_id.in_({s.location_id for s in stocks}),
        )
        .group_by(Reservation.item_id, Reservation.location_id, Reservation.lot)
    )
    return {(i, loc, lot): qty(total) for i, loc, lot, total in rows}


def render(db: Session, stocks: Sequence[Stock]) -> list[dict[str, Any]]:
    held = reserved_by_level(db, stocks)
    return [
        serialize.level(
            s.item_id, s.item.sku, s.location, s.lot, qty(s.on_hand), held.get((s.item_id, s.location_id, s.lot), ZERO)
        )
        for s in stocks
    ]


def in_warehouse(warehouse_id: int) -> ColumnElement[bool]:
    return Stock.location_id.in_(select(Location.id).where(Location.warehouse_id == warehouse_id))


def list_levels(db: Session, args: StockFilter) -> dict[str, Any]:
    conditions: list[ColumnElement[bool]] = []
    if args.item_id is not None:
        conditions.append(Stock.item_id == ITEM.fetch(db, args.item_id).id)
    if args.location_id is not None:
        conditions.append(Stock.location_id == LOCATION.fetch(db, args.location_id).id)
    if args.warehouse_id is not None:
        conditions.append(in_warehouse(WAREHOUSE.fetch(db, args.warehouse_id).id))
    if not args.include_empty:
        conditions.append(Stock.on_hand > 0)
    total = db.scalar(select(func.count()).select_from(Stock).where(*conditions))
    stocks = db.scalars(
        select(Stock)
        .where(*conditions)
        .order_by(Stock.item_id, Stock.location_id, Stock.lot)
        .limit(args.limit)
        .offset(args.offset)
    ).all()
    return {"levels": render(db, stocks), "total": total}


def on_order(db: Session, item_id: int | None = None) -> dict[int, Decimal]:
    """What open purchase orders still have to deliver, per item (of one item if given)."""
    outstanding = func.sum(PurchaseOrderLine.quantity - PurchaseOrderLine.received_quantity)
    query = (
        select(PurchaseOrderLine.item_id, outstanding)
        .join(PurchaseOrder, PurchaseOrder.id == PurchaseOrderLine.purchase_order_id)
        .where(PurchaseOrder.status.in_(OPEN_ORDER))
        .group_by(PurchaseOrderLine.item_id)
    )
    if item_id is not None:
        query = query.where(PurchaseOrderLine.item_id == item_id)
    return {i: qty(total) for i, total in db.execute(query)}


def item_detail(db: Session, item: Item) -> dict[str, Any]:
    """The item, its levels (those holding or owing stock) and its totals."""
    stocks = db.scalars(select(Stock).where(Stock.item_id == item.id).order_by(Stock.location_id, Stock.lot)).all()
    levels = [lvl for lvl in render(db, stocks) if lvl["on_hand"] != "0" or lvl["reserved"] != "0"]
    on_hand = ledger.total_on_hand(db, item.id)
    reserved = sum((Decimal(lvl["reserved"]) for lvl in levels), ZERO)
    return {
        "item": serialize.item(item),
        "stock": levels,
        "totals": {
            "on_hand": num(on_hand),
            "reserved": num(reserved),
            "available": num(on_hand - reserved),
            "on_order": num(on_order(db, item.id).get(item.id, ZERO)),
            "value": money(on_hand * serialize.cost(item.unit_cost)),
        },
    }

"""Reads over the movement history: stock as it stood on a past day, the history exported, and
an audit that the levels still equal the sums of their movements."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from domains.inventory import inputs_flow, serialize
from domains.inventory.entities import ITEM, WAREHOUSE
from domains.inventory.inputs_flow import MovementHistoryExport, StockAudit, StockSnapshot
from domains.inventory.reports import day_end
from domains.inventory.serialize import num, qty
from domains.inventory.tables import Item, Location, Movement, Reservation, Stock
from facade.kit import CallContext, Toolset, within_days

Result = dict[str, Any]
tools = Toolset()

ZERO = Decimal(0)
HALF_THOUSANDTH = Decimal("0.0005")


def snapshot(db: Session, args: StockSnapshot) -> dict[str, Any]:
    """Each level's quantity at the end of `as_of`, summed from the movements up to then."""
    conditions: list[ColumnElement[bool]] = [Movement.occurred_at < day_end(args.as_of)]
    if args.item_id is not None:
        conditions.append(Movement.item_id == ITEM.fetch(db, args.item_id).id)
    if args.warehouse_id is not None:
        warehouse = WAREHOUSE.fetch(db, args.warehouse_id)
        conditions.append(Movement.location_id.in_(select(Location.id).where(Location.warehouse_id == warehouse.id)))
    quantity = func.sum(Movement.quantity)
    levels = (
        select(Movement.item_id, Movement.location_id, Movement.lot, quantity.label("quantity"))
        .where(*conditions)
        .group_by(Movement.item_id, Movement.location_id, Movement.lot)
        # Not `!= 0`: SQLite sums binary floats, and 0.1 + 0.2 - 0.3 is not quite zero there.
        .having(func.abs(quantity) >= HALF_THOUSANDTH)
    )
    total = db.scalar(select(func.count()).select_from(levels.subquery()))
    rows = db.execute(
        levels.order_by(Movement.item_id, Movement.location_id, Movement.lot).limit(args.limit).offset(args.offset)
    ).all()
    items = {i.id: i for i in db.scalars(select(Item).where(Item.id.in_({r[0] for r in rows})))}
    places = {loc.id: loc for loc in db.scalars(select(Location).where(Location.id.in_({r[1] for r in rows})))}
    return {
        "as_of": args.as_of.isoformat(),
        "levels": [
            {
                "item_id": item_id,
                "sku": items[item_id].sku,
                "location_id": location_id,
                "location": places[location_id].label,
                "lot": lot,
                "on_hand": num(qty(amount)),
            }
            for item_id, location_id, lot, amount in rows
        ],
        "total": total,
    }


CSV_COLUMNS = (
    "id",
    "occurred_at",
    "kind",
    "sku",
    "location",
    "lot",
    "quantity",
    "unit_cost",
    "value",
    "reference",
    "reason",
    "created_by",
    "reverses_id",
)


def export(db: Session, args: MovementHistoryExport) -> dict[str, Any]:
    conditions: list[ColumnElement[bool]] = []
    if args.item_id is not None:
        conditions.append(Movement.item_id == ITEM.fetch(db, args.item_id).id)
    conditions += within_days(Movement.occurred_at, args.date_from, args.date_to)
    total = db.scalar(select(func.count()).select_from(Movement).where(*conditions)) or 0
    movements = db.scalars(
        select(Movement).where(*conditions).order_by(Movement.id).limit(args.limit).offset(args.offset)
    ).all()
    rows = [serialize.movement(m) for m in movements]
    data: Any = rows
    if args.format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        data = out.getvalue()
    return {"format": args.format, "count": len(rows), "total": total, "offset": args.offset, "data": data}


def audit(db: Session, args: StockAudit) -> dict[str, Any]:
    """Compare every level with the sum of its movements, and reservations with what is on hand."""
    movement_filter: list[ColumnElement[bool]] = []
    stock_filter: list[ColumnElement[bool]] = []
    if args.item_id is not None:
        item_id = ITEM.fetch(db, args.item_id).id
        movement_filter.append(Movement.item_id == item_id)
        stock_filter.append(Stock.item_id == item_id)
    booked = {
        (i, loc, lot): qty(total)
        for i, loc, lot, total in db.execute(
            select(Movement.item_id, Movement.location_id, Movement.lot, func.sum(Movement.quantity))
            .where(*movement_filter)
            .group_by(Movement.item_id, Movement.location_id, Movement.lot)
        )
    }
    levels = {(s.item_id, s.location_id, s.lot): qty(s.on_hand) for s in db.scalars(select(Stock).where(*stock_filter))}
    mismatches = [
        {
            "item_id": key[0],
            "location_id": key[1],
            "lot": key[2],
            "on_hand": num(levels.get(key, ZERO)),
            "from_movements": num(booked.get(key, ZERO)),
        }
        for key in sorted(set(booked) | set(levels))
        if levels.get(key, ZERO) != booked.get(key, ZERO)
    ]
    held_filter = [Reservation.status == "active"] + ([Reservation.item_id == args.item_id] if args.item_id else [])
    held = db.execute(
        select(Reservation.item_id, Reservation.location_id, Reservation.lot, func.sum(Reservation.quantity))
        .where(*held_filter)
        .group_by(Reservation.item_id, Reservation.location_id, Reservation.lot)
        .order_by(Reservation.item_id, Reservation.location_id)
    )
    shortages = []
    for item_id, location_id, lot, total in held:
        have = levels.get((item_id, location_id, lot), ZERO)
        if qty(total) > have:
            shortages.append(
                {
                    "item_id": item_id,
                    "location_id": location_id,
                    "lot": lot,
                    "on_hand": num(have),
                    "reserved": num(qty(total)),
                }
            )
    return {
        "levels_checked": len(set(booked) | set(levels)),
        "consistent": not mismatches,
        "mismatches": mismatches,
        "over_reserved": shortages,
    }


@tools.capability("stock_snapshot", read_only=True, example={"as_of": "2026-06-30"})
def stock_snapshot(ctx: CallContext, args: inputs_flow.StockSnapshot) -> Result:
    """Show stock levels as they stood at the end of a past day."""
    return snapshot(ctx.db, args)


@tools.capability("movement_history_export", read_only=True, example={"format": "csv", "item_id": 1})
def movement_history_export(ctx: CallContext, args: inputs_flow.MovementHistoryExport) -> Result:
    """Export the movement history as CSV or JSON."""
    return export(ctx.db, args)


@tools.capability("stock_audit", read_only=True, example={})
def stock_audit(ctx: CallContext, args: inputs_flow.StockAudit) -> Result:
    """Check that every stock level equals the sum of its movements."""
    return audit(ctx.db, args)

"""Capabilities that read and move stock: levels, receipts, issues, transfers, adjustments,
the movement history and its reversal."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement

from domains.inventory import corrections, inputs, ledger, levels, serialize
from domains.inventory.entities import ITEM, LOCATION, MOVEMENT, REFERENCES
from domains.inventory.tables import Movement
from facade.kit import CallContext, Toolset, records, within_days

tools = Toolset()
full_tools = Toolset()  # the workflow steps, corrections and bulk work, listed after the core tools

Result = dict[str, Any]


def _level(ctx: CallContext, item_id: int, location_id: int, lot: str) -> Result:
    item, location = ITEM.fetch(ctx.db, item_id), LOCATION.fetch(ctx.db, location_id)
    have = ledger.on_hand(ctx.db, item_id, location_id, lot)
    return serialize.level(item.id, item.sku, location, lot, have, ledger.reserved(ctx.db, item_id, location_id, lot))


def _movements_where(args: inputs.MovementFilter) -> list[ColumnElement[bool]]:
    return within_days(Movement.occurred_at, args.date_from, args.date_to)


@tools.capability("stock_list", read_only=True, example={"warehouse_id": 1})
def stock_list(ctx: CallContext, args: inputs.StockFilter) -> Result:
    """List stock levels with on-hand, reserved and available quantities."""
    return levels.list_levels(ctx.db, args)

# Receiving, issuing, moving and correcting stock are the domain's everyday writes, so they
# are core although their verbs are not in the criterion's list.
@tools.capability(
    "stock_receive",
    tier="core",
    example={"item_id": 6, "location_id": 1, "quantity": 24, "unit_cost": 2.05, "reference": "DN-90417"},
)
def stock_receive(ctx: CallContext, args: inputs.StockReceive) -> Result:
    """Receive stock into a location without a purchase order."""
    item, location = ITEM.fetch(ctx.db, args.item_id), LOCATION.fetch(ctx.db, args.location_id)
    movement = ledger.receive(
        ctx.db,
        item,
        location,
        args.lot,
        args.quantity,
        args.unit_cost,
        created_by=ctx.agent,
        reference=args.reference,
    )
    return {"movement": serialize.movement(movement), "level": _level(ctx, item.id, location.id, movement.lot)}


@tools.capability(
    "stock_issue",
    tier="core",  # everyday write, see stock_receive
    example={"item_id": 1, "location_id": 2, "quantity": 100, "reason": "Frame assembly", "reference": "WO-1320"},
)
def stock_issue(ctx: CallContext, args: inputs.StockIssue) -> Result:
    """Take stock out of a location for use or sale."""
    item, location = ITEM.fetch(ctx.db, args.item_id), LOCATION.fetch(ctx.db, args.location_id)
    lot = ledger.lot_for(item, args.lot)
    movement = ledger.take(
        ctx.db,
        item,
        location,
        lot,
        args.quantity,
        kind="issue",
        created_by=ctx.agent,
        reason=args.reason,
        reference=args.reference,
    )
    return {"movement": serialize.movement(movement), "level": _level(ctx, item.id, location.id, lot)}


@tools.capability(
    "stock_transfer",
    tier="core",  # everyday write, see stock_receive
    example={"item_id": 2, "from_location_id": 2, "to_location_id": 3, "quantity": 200},
)
def stock_transfer(ctx: CallContext, args: inputs.StockTransfer) -> Result:
    """Move stock from one location to another."""
    item = ITEM.fetch(ctx.db, args.item_id)
    source, target = LOCATION.fetch(ctx.db, args.from_location_id), LOCATION.fetch(ctx.db, args.to_location_id)
    out, into = ledger.transfer(ctx.db, item, source, target, args.lot, args.quantity, created_by=ctx.agent)
    return {
        "movements": [serialize.movement(out), serialize.movement(into)],
        "from": _level(ctx, item.id, source.id, out.lot),
        "to": _level(ctx, item.id, target.id, into.lot),
    }


@tools.capability(
    "stock_adjust",
    tier="core",  # everyday write, see stock_receive
    example={"item_id": 2, "location_id": 2, "quantity": -4, "reason": "Spilled bin, four nuts lost"},
)
def stock_adjust(ctx: CallContext, args: inputs.StockAdjust) -> Result:
    """Correct a stock level up or down, giving the reason."""
    item, location = ITEM.fetch(ctx.db, args.item_id), LOCATION.fetch(ctx.db, args.location_id)
    movement = ledger.adjust(
        ctx.db, item, location, args.lot, args.quantity, reason=args.reason, created_by=ctx.agent
    )
    short = ledger.shortage(ctx.db, item, location, movement.lot)
    result = {"movement": serialize.movement(movement), "level": _level(ctx, item.id, location.id, movement.lot)}
    if short > 0:
        result["warning"] = (
            f"{serialize.num(short)} {item.unit} more is reserved than is on hand; release or reduce "
            "reservations (inventory.reservation_list)"
        )
    return result

records.add_list(
    tools,
    MOVEMENT,
    inputs.MovementFilter,
    example={"item_id": 1},
    where=_movements_where,
    references=REFERENCES,
    description="List stock movements, oldest first, optionally filtered.",
)


@full_tools.capability(
    "movement_reverse", example={"movement_id": 15, "reason": "The two boxes were fine after all; back on the shelf"}
)
def movement_reverse(ctx: CallContext, args: inputs.MovementReverse) -> Result:
    """Cancel a movement with an opposite one; a transfer is reversed whole."""
    movement = MOVEMENT.fetch(ctx.db, args.movement_id)
    reversals = corrections.reverse(ctx.db, movement, args.reason, ctx.agent)
    return {"reversals": [serialize.movement(m) for m in reversals]}

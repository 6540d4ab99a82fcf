"""Capabilities of purchase orders, reservations and cycle counts: the core reads and edits in
`register`, the workflow steps (place, receive, release, count, apply…) in `register_full`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement

from domains.inventory import counts, inputs_flow, purchasing, reservations, rules, serialize
from domains.inventory.entities import COUNT, ITEM, LOCATION, PURCHASE_ORDER, REFERENCES, RESERVATION
from domains.inventory.tables import PurchaseOrder, PurchaseOrderLine
from facade.kit import CallContext, Toolset, records

tools = Toolset()
full_tools = Toolset()  # the workflow steps, corrections and bulk work, listed after the core tools

Result = dict[str, Any]


def _orders_where(args: inputs_flow.PurchaseOrderFilter) -> list[ColumnElement[bool]]:
    if args.item_id is None:
        return []
    return [PurchaseOrder.lines.any(PurchaseOrderLine.item_id == args.item_id)]


@tools.capability(
    "purchase_order_create",
    example={
        "supplier_id": 3,
        "expected_date": "2026-12-18",
        "lines": [{"item_id": 5, "quantity": 400}, {"item_id": 6, "quantity": 48, "unit_cost": 2.05}],
    },
)
def purchase_order_create(ctx: CallContext, args: inputs_flow.PurchaseOrderCreate) -> Result:
    """Create a draft purchase order with its lines."""
    order = purchasing.create(ctx.db, args.supplier_id, args.lines, args.expected_date, args.notes)
    return {"purchase_order": serialize.purchase_order(order)}

records.add_get(tools, PURCHASE_ORDER, example_id=3)
records.add_list(
    tools,
    PURCHASE_ORDER,
    inputs_flow.PurchaseOrderFilter,
    example={"status": "draft"},
    where=_orders_where,
    references=REFERENCES,
    description="List purchase orders, optionally filtered.",
)
records.add_update(
    tools,
    PURCHASE_ORDER,
    inputs_flow.PurchaseOrderUpdate,
    example={"purchase_order_id": 4, "expected_date": "2026-12-11", "notes": "Deliver to dock 2."},
    check=purchasing.check_update,
)
records.add_delete(
    tools,
    PURCHASE_ORDER,
    example_id=5,
    check=rules.on_order_delete,
    description="Delete a draft purchase order.",
)


@tools.capability(
    "reservation_create",
    example={"item_id": 3, "location_id": 3, "quantity": 50, "reference": "Job J-81 workshop rewiring"},
)
def reservation_create(ctx: CallContext, args: inputs_flow.ReservationCreate) -> Result:
    """Hold available stock at a location for a purpose."""
    item, location = ITEM.fetch(ctx.db, args.item_id), LOCATION.fetch(ctx.db, args.location_id)
    reservation = reservations.create(
        ctx.db, item, location, args.lot, args.quantity, args.reference, created_by=ctx.agent
    )
    return {"reservation": serialize.reservation(reservation)}

records.add_list(
    tools,
    RESERVATION,
    inputs_flow.ReservationFilter,
    example={"status": "active"},
    references=REFERENCES,
)


@tools.capability("count_create", example={"location_id": 4, "note": "Quarterly count of safety gear"})
def count_create(ctx: CallContext, args: inputs_flow.CountCreate) -> Result:
    """Open a cycle count of a location."""
    count = counts.create(ctx.db, LOCATION.fetch(ctx.db, args.location_id), args.item_ids, args.note)
    return counts.detail(ctx.db, count)

records.add_list(
    tools, COUNT, inputs_flow.CountFilter, example={}, references=REFERENCES, description="List cycle counts."
)


@tools.capability("count_get", read_only=True, example={"count_id": 1})
def count_get(ctx: CallContext, args: inputs_flow.CountRef) -> Result:
    """Get a cycle count with each line's variance against current stock."""
    return counts.detail(ctx.db, COUNT.fetch(ctx.db, args.count_id))


@full_tools.capability("purchase_order_place", example={"purchase_order_id": 4})
def purchase_order_place(ctx: CallContext, args: inputs_flow.PurchaseOrderRef) -> Result:
    """Place a draft purchase order with its supplier."""
    order = purchasing.place(ctx.db, PURCHASE_ORDER.fetch(ctx.db, args.purchase_order_id))
    return {"purchase_order": serialize.purchase_order(order)}


@full_tools.capability(
    "purchase_order_receive",
    example={"purchase_order_id": 3, "location_id": 1, "lines": [{"line_id": 6, "quantity": 30}]},
)
def purchase_order_receive(ctx: CallContext, args: inputs_flow.PurchaseOrderReceive) -> Result:
    """Receive delivered purchase order lines into a location."""
    order = PURCHASE_ORDER.fetch(ctx.db, args.purchase_order_id)
    return purchasing.receive(
        ctx.db, order, args.location_id, args.lines, reference=args.reference, created_by=ctx.agent
    )


@full_tools.capability("purchase_order_cancel", example={"purchase_order_id": 6})
def purchase_order_cancel(ctx: CallContext, args: inputs_flow.PurchaseOrderRef) -> Result:
    """Cancel a purchase order; what was already received stays."""
    order = purchasing.cancel(ctx.db, PURCHASE_ORDER.fetch(ctx.db, args.purchase_order_id))
    return {"purchase_order": serialize.purchase_order(order)}


@full_tools.capability("purchase_order_duplicate", example={"purchase_order_id": 1})
def purchase_order_duplicate(ctx: CallContext, args: inputs_flow.PurchaseOrderRef) -> Result:
    """Start a new draft that orders the same lines again."""
    source = PURCHASE_ORDER.fetch(ctx.db, args.purchase_order_id)
    lines = [
        inputs_flow.OrderLine(item_id=line.item_id, quantity=line.quantity, unit_cost=line.unit_cost)
        for line in source.lines
        if line.item.archived_at is None
    ]
    note = f"Reorder of {serialize.order_number(source.id)}"
    order = purchasing.create(ctx.db, source.supplier_id, lines, None, note)
    return {"purchase_order": serialize.purchase_order(order)}


@full_tools.capability("reservation_release", example={"reservation_id": 3})
def reservation_release(ctx: CallContext, args: inputs_flow.ReservationRef) -> Result:
    """Release a reservation, freeing its stock."""
    reservation = reservations.release(ctx.db, RESERVATION.fetch(ctx.db, args.reservation_id))
    return {"reservation": serialize.reservation(reservation)}


@full_tools.capability("reservation_fulfill", example={"reservation_id": 1})
def reservation_fulfill(ctx: CallContext, args: inputs_flow.ReservationRef) -> Result:
    """Issue a reservation's stock and close it."""
    reservation = RESERVATION.fetch(ctx.db, args.reservation_id)
    movement = reservations.fulfill(ctx.db, reservation, created_by=ctx.agent)
    return {"reservation": serialize.reservation(reservation), "movement": serialize.movement(movement)}


@full_tools.capability(
    "count_record",
    example={
        "count_id": 1,
        "lines": [{"item_id": 1, "counted_quantity": 298}, {"item_id": 2, "counted_quantity": 300}],
    },
)
def count_record(ctx: CallContext, args: inputs_flow.CountRecord) -> Result:
    """Record counted quantities on an open cycle count."""
    count = counts.record(ctx.db, COUNT.fetch(ctx.db, args.count_id), args.lines)
    return counts.detail(ctx.db, count)


@full_tools.capability("count_apply", example={"count_id": 3})
def count_apply(ctx: CallContext, args: inputs_flow.CountRef) -> Result:
    """Apply a fully counted cycle count's variances as stock adjustments."""
    return counts.apply(ctx.db, COUNT.fetch(ctx.db, args.count_id), created_by=ctx.agent)


@full_tools.capability("count_cancel", example={"count_id": 2})
def count_cancel(ctx: CallContext, args: inputs_flow.CountRef) -> Result:
    """Cancel an open cycle count without adjusting stock."""
    count = counts.cancel(ctx.db, COUNT.fetch(ctx.db, args.count_id))
    return {"count": serialize.count_summary(count)}

"""Purchase orders: a draft is edited freely, placed (ordered), then received line by line —
each receipt a receive movement at the line's cost — until every line is in (received), or
cancelled. A line is never received beyond its ordered quantity."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from domains.inventory import ledger, serialize
from domains.inventory.entities import ITEM, LOCATION, SUPPLIER
from domains.inventory.inputs_flow import OrderLine, ReceiptLine
from domains.inventory.serialize import num, qty
from domains.inventory.tables import OPEN_ORDER, PurchaseOrder, PurchaseOrderLine
from facade.kit import Conflict, InvalidRequest, utcnow


def build_lines(db: Session, order: PurchaseOrder, lines: list[OrderLine]) -> None:
    """Give a draft exactly these lines (one per item, active items only)."""
    seen: set[int] = set()
    built: list[PurchaseOrderLine] = []
    for line in lines:
        if line.item_id in seen:
            raise InvalidRequest(
                f"item {line.item_id} appears twice in lines; give each item once with the total quantity"
            )
        seen.add(line.item_id)
        item = ledger.ensure_active(ITEM.fetch(db, line.item_id))
        unit_cost = line.unit_cost if line.unit_cost is not None else item.unit_cost
        built.append(PurchaseOrderLine(item=item, quantity=line.quantity, unit_cost=unit_cost))
    order.lines.clear()
    db.flush()  # the old lines go before the new ones meet the one-line-per-item constraint
    order.lines.extend(built)


def create(db: Session, supplier_id: int, lines: list[OrderLine], expected_date: Any, notes: str) -> PurchaseOrder:
    supplier = SUPPLIER.fetch(db, supplier_id)
    order = PurchaseOrder(supplier=supplier, status="draft", expected_date=expected_date, notes=notes)
    db.add(order)
    build_lines(db, order, lines)
    db.flush()
    return order


def check_update(db: Session, order: PurchaseOrder, changes: dict[str, Any]) -> None:
    """Drafts change freely; an open order keeps its supplier and lines; a closed one is final."""
    if order.status in ("received", "cancelled"):
        raise Conflict(f"purchase order {order.id} is {order.status} and can no longer change")
    for field in ("supplier_id", "lines"):
        if field in changes and order.status != "draft":
            raise Conflict(
                f"purchase order {order.id} is already {order.status}; its {field} cannot change. "
                "Cancel it (inventory.purchase_order_cancel) and create a new one"
            )
    if "supplier_id" in changes:
        supplier_id = changes.pop("supplier_id")
        if supplier_id is None:
            raise InvalidRequest("supplier_id cannot be null; omit it to keep the current supplier")
        # Set through the relationship, so that the rendered order names the new supplier.
        order.supplier = SUPPLIER.fetch(db, supplier_id)
    if "lines" in changes:
        build_lines(db, order, changes.pop("lines") or [])


def place(db: Session, order: PurchaseOrder) -> PurchaseOrder:
    if order.status != "draft":
        raise Conflict(f"purchase order {order.id} is already {order.status}; only a draft can be placed")
    if not order.lines:
        raise InvalidRequest(
            f"purchase order {order.id} has no lines; add them with inventory.purchase_order_update lines=[...]"
        )
    for line in order.lines:
        ledger.ensure_active(line.item)
    order.status = "ordered"
    order.ordered_at = utcnow()
    db.flush()
    return order


def refresh_status(order: PurchaseOrder) -> None:
    """Ordered, partially or fully received, from what the lines hold; a cancelled order stays so."""
    if order.status in ("draft", "cancelled"):
        return
    received = [qty(line.received_quantity) for line in order.lines]
    if all(got >= qty(line.quantity) for got, line in zip(received, order.lines, strict=True)):
        order.status, order.closed_at = "received", order.closed_at or utcnow()
    else:
        order.status, order.closed_at = ("partially_received" if any(received) else "ordered"), None


def receive(
    db: Session,
    order: PurchaseOrder,
    location_id: int,
    lines: list[ReceiptLine] | None,
    *,
    reference: str,
    created_by: str,
) -> dict[str, Any]:
    """Receive some or all outstanding quantities into one location."""
    if order.status not in OPEN_ORDER:
        hint = (
            "place it with inventory.purchase_order_place first"
            if order.status == "draft"
            else "nothing is outstanding"
        )
        raise Conflict(f"purchase order {order.id} is {order.status}; {hint}")
    location = LOCATION.fetch(db, location_id)
    by_id = {line.id: line for line in order.lines}
    wanted = lines if lines is not None else _outstanding(order)
    plan: list[tuple[PurchaseOrderLine, Decimal, str]] = []
    for receipt in wanted:
        line = by_id.get(receipt.line_id)
        if line is None:
            raise InvalidRequest(
                f"line {receipt.line_id} is not a line of purchase order {order.id}; its lines are {sorted(by_id)}"
            )
        outstanding = qty(line.quantity) - qty(line.received_quantity)
        if receipt.quantity > outstanding:
            raise InvalidRequest(
                f"line {line.id} ({line.item.sku}) ordered {num(line.quantity)}, received "
                f"{num(line.received_quantity)}, so {num(outstanding)} outstanding; {num(receipt.quantity)} "
                "cannot be received. Receive at most "
                f"{num(outstanding)}; book any surplus with inventory.stock_receive"
            )
        plan.append((line, receipt.quantity, receipt.lot))
    if not plan:
        raise InvalidRequest(f"purchase order {order.id} has nothing outstanding to receive")
    number = serialize.order_number(order.id)
    movements = []
    for line, quantity, lot in plan:  # every line was checked above: a refused receipt changes nothing
        movements.append(
            ledger.receive(
                db,
                line.item,
                location,
                lot,
                quantity,
                line.unit_cost,
                created_by=created_by,
                reference=reference or number,
                reason=f"{number} line {line.id}",
                po_line_id=line.id,
            )
        )
        line.received_quantity = qty(line.received_quantity) + quantity
    refresh_status(order)
    db.flush()
    return {"purchase_order": serialize.purchase_order(order), "movements": [serialize.movement(m) for m in movements]}


def _outstanding(order: PurchaseOrder) -> list[ReceiptLine]:
    pending = [line for line in order.lines if qty(line.quantity) > qty(line.received_quantity)]
    lotted = [line.item.sku for line in pending if line.item.track_lots]
    if lotted:
        raise InvalidRequest(
            f"items {', '.join(lotted)} track lots; give lines=[{{line_id, quantity, lot}}] to say which lot arrived"
        )
    return [ReceiptLine(line_id=line.id, quantity=qty(line.quantity) - qty(line.received_quantity)) for line in pending]


def cancel(db: Session, order: PurchaseOrder) -> PurchaseOrder:
    if order.status in ("received", "cancelled"):
        raise Conflict(f"purchase order {order.id} is already {order.status}; there is nothing left to cancel")
    order.status = "cancelled"
    order.closed_at = utcnow()
    db.flush()
    return order

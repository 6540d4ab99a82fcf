"""Undoing a movement. History is append-only, so a mistake is cancelled by a `reversal`
movement of the opposite sign, never by editing or deleting the original; what the original
caused elsewhere (a purchase order line's received quantity, a fulfilled reservation, the
moving average cost) is unwound with it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.inventory import ledger, purchasing
from domains.inventory.serialize import qty
from domains.inventory.tables import Movement, PurchaseOrderLine, Reservation
from facade.kit import Conflict, InvalidRequest


def _legs(db: Session, movement: Movement) -> list[Movement]:
    """The movements one reversal must cancel: both halves of a transfer (the in half first,
    so that stock leaves the destination before it returns to the source), else the one."""
    if movement.kind == "transfer_in" and movement.pair_id is not None:
        out = db.get(Movement, movement.pair_id)
        return [movement] + ([out] if out is not None else [])
    if movement.kind == "transfer_out":
        into = db.scalar(select(Movement).where(Movement.pair_id == movement.id))
        return ([into] if into is not None else []) + [movement]
    return [movement]


def reverse(db: Session, movement: Movement, reason: str, created_by: str) -> list[Movement]:
    if movement.kind == "reversal":
        raise InvalidRequest(
            f"movement {movement.id} is itself a reversal; to redo what it undid, post the movement again"
        )
    legs = _legs(db, movement)
    for leg in legs:
        undone = db.scalar(select(Movement.id).where(Movement.reverses_id == leg.id))
        if undone is not None:
            raise Conflict(f"movement {leg.id} was already reversed by movement {undone}")
    reversals: list[Movement] = []
    for leg in legs:
        quantity = qty(leg.quantity)
        details = {"reverses_id": leg.id, "reason": reason, "reference": leg.reference}
        if quantity > 0:
            # Taking back what came in: reserved stock stays protected, as for any issue.
            before = ledger.total_on_hand(db, leg.item_id)
            reversal = ledger.take(
                db,
                leg.item,
                leg.location,
                leg.lot,
                quantity,
                kind="reversal",
                created_by=created_by,
                unit_cost=leg.unit_cost,
                **details,
            )
            if leg.kind == "receive":
                leg.item.unit_cost = ledger.moving_average(before, leg.item.unit_cost, -quantity, leg.unit_cost)
        else:
            reversal = ledger.post(
                db,
                kind="reversal",
                item=leg.item,
                location=leg.location,
                lot=leg.lot,
                quantity=-quantity,
                unit_cost=leg.unit_cost,
                created_by=created_by,
                **details,
            )
        reversals.append(reversal)
        _unwind(db, leg)
    db.flush()
    return reversals


def _unwind(db: Session, leg: Movement) -> None:
    if leg.po_line_id is not None:
        line = db.get(PurchaseOrderLine, leg.po_line_id)
        if line is not None:
            line.received_quantity = max(qty(line.received_quantity) - qty(leg.quantity), qty(0))
            purchasing.refresh_status(line.order)
    if leg.reservation_id is not None:
        reservation = db.get(Reservation, leg.reservation_id)
        if reservation is not None and reservation.status == "fulfilled":
            # The stock is back on the shelf, so it is held for its purpose again.
            reservation.status, reservation.closed_at = "active", None

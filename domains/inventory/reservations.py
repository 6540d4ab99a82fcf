"""Reservations: stock held at one level for a purpose. Only what is available (on hand minus
what is already reserved) can be reserved; a reservation ends released (the stock is free
again) or fulfilled (the stock is issued through it)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.orm import Session

from domains.inventory import ledger
from domains.inventory.serialize import num, qty
from domains.inventory.tables import Item, Location, Movement, Reservation
from facade.kit import Conflict, InvalidRequest, utcnow


def create(
    db: Session, item: Item, location: Location, lot: str, quantity: Decimal, reference: str, created_by: str
) -> Reservation:
    ledger.ensure_active(item)
    lot = ledger.lot_for(item, lot)
    have = ledger.on_hand(db, item.id, location.id, lot)
    held = ledger.reserved(db, item.id, location.id, lot)
    if quantity > have - held:
        raise InvalidRequest(
            f"{ledger.where(item, location, lot)} has {num(have)} on hand and {num(held)} reserved, so "
            f"{num(have - held)} {item.unit} available; {num(quantity)} cannot be reserved. Reserve at most "
            f"{num(have - held)}, or find stock elsewhere with inventory.stock_list item_id={item.id}"
        )
    reservation = Reservation(
        item=item, location=location, lot=lot, quantity=quantity, reference=reference, created_by=created_by[:120]
    )
    db.add(reservation)
    db.flush()
    return reservation


def _active(reservation: Reservation) -> Reservation:
    if reservation.status != "active":
        raise Conflict(f"reservation {reservation.id} is already {reservation.status}; only an active one can change")
    return reservation


def release(db: Session, reservation: Reservation) -> Reservation:
    _active(reservation).status = "released"
    reservation.closed_at = utcnow()
    db.flush()
    return reservation


def fulfill(db: Session, reservation: Reservation, created_by: str) -> Movement:
    """Issue the reserved quantity through the reservation and close it."""
    _active(reservation)
    movement = ledger.take(
        db,
        reservation.item,
        reservation.location,
        reservation.lot,
        qty(reservation.quantity),
        kind="issue",
        created_by=created_by,
        reservation=reservation,
        reference=reservation.reference[:120],
        reason=f"fulfils reservation {reservation.id}",
    )
    reservation.status = "fulfilled"
    reservation.closed_at = utcnow()
    db.flush()
    return movement

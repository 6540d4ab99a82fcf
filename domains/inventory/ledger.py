"""The stock ledger: the one place stock levels change.

Every change is a movement appended by `post`, which moves the item × location × lot level by
the same signed quantity in the same transaction, so a level always equals the sum of its
movements (`reports.audit` checks it). No level may go below zero, and what is reserved may
only leave through the reservation that holds it.

Valuation is by moving average cost: a receipt blends its cost into the item's `unit_cost`
over everything on hand; issues, transfers and adjustments move stock at that average. Chosen
over FIFO because it needs no per-receipt layers to stay consistent with reversals and counts.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.inventory.serialize import cost, num, qty
from domains.inventory.tables import Item, Location, Movement, Reservation, Stock
from facade.kit import Conflict, InvalidRequest, records, utcnow

ZERO = Decimal(0)
MAX_LEVEL = Decimal("999999999999999.999")  # the most Numeric(18, 3) holds


def lot_for(item: Item, lot: str) -> str:
    """The lot a movement of `item` uses: required when the item tracks lots, refused otherwise."""
    lot = lot.strip()
    if item.track_lots and not lot:
        raise InvalidRequest(
            f"item {item.id} ({item.sku}) tracks lots; give its lot or serial number "
            f"(inventory.stock_list item_id={item.id} shows the lots on hand)"
        )
    if lot and not item.track_lots:
        raise InvalidRequest(f"item {item.id} ({item.sku}) does not track lots; omit lot")
    return lot


def ensure_active(item: Item) -> Item:
    if item.archived_at is not None:
        raise Conflict(f"item {item.id} ({item.sku}) is archived; unarchive it with inventory.item_unarchive first")
    return item


def level(db: Session, item_id: int, location_id: int, lot: str, *, lock: bool = False) -> Stock | None:
    query = select(Stock).where(Stock.item_id == item_id, Stock.location_id == location_id, Stock.lot == lot)
    if lock:
        # On PostgreSQL two concurrent issues of the same level queue here instead of both
        # passing the on-hand check, and the one that waited reads the level afresh (not the
        # copy its session already holds). SQLite serialises writers and ignores the clause.
        query = query.with_for_update(of=Stock).execution_options(populate_existing=True)
    return db.scalar(query)


def on_hand(db: Session, item_id: int, location_id: int, lot: str) -> Decimal:
    stock = level(db, item_id, location_id, lot)
    return qty(stock.on_hand) if stock is not None else ZERO


def reserved(db: Session, item_id: int, location_id: int, lot: str, *, excluding: int | None = None) -> Decimal:
    total = db.scalar(
        select(func.coalesce(func.sum(Reservation.quantity), 0)).where(
            Reservation.item_id == item_id,
            Reservation.location_id == location_id,
            Reservation.lot == lot,
            Reservation.status == "active",
            Reservation.id != (excluding or 0),
        )
    )
    return qty(total or ZERO)


def total_on_hand(db: Session, item_id: int) -> Decimal:
    total = db.scalar(select(func.coalesce(func.sum(Stock.on_hand), 0)).where(Stock.item_id == item_id))
    return qty(total or ZERO)


def where(item: Item, location: Location, lot: str) -> str:
    return f"item {item.id} ({item.sku}) at location {location.id} ({location.label})" + (f", lot {lot}" if lot else "")


def shortfall(item: Item, location: Location, lot: str, have: Decimal, requested: Decimal) -> InvalidRequest:
    return InvalidRequest(
        f"{where(item, location, lot)} has {num(have)} {item.unit} on hand; {num(requested)} requested. "
        f"Take at most {num(have)}, or find stock elsewhere with inventory.stock_list item_id={item.id}"
    )


def post(
    db: Session,
    *,
    kind: str,
    item: Item,
    location: Location,
    lot: str,
    quantity: Decimal,
    unit_cost: Decimal,
    created_by: str,
    at: datetime | None = None,
    **details: Any,
) -> Movement:
    """Append one movement and move its level by `quantity` (signed); refuses a negative level.
    `details` are the movement's other columns (reason, reference, links to what caused it)."""
    stock = level(db, item.id, location.id, lot, lock=True)
    have = qty(stock.on_hand) if stock is not None else ZERO
    if have + quantity < 0:
        raise shortfall(item, location, lot, have, -quantity)
    if have + quantity > MAX_LEVEL:
        raise InvalidRequest(f"{where(item, location, lot)} would hold more than {MAX_LEVEL}; check the quantity")
    when = at or utcnow()
    if stock is None:
        stock = Stock(item=item, location=location, lot=lot, on_hand=ZERO)
        db.add(stock)
    stock.on_hand = have + quantity
    stock.updated_at = when
    movement = Movement(
        kind=kind,
        item=item,
        location=location,
        lot=lot,
        quantity=quantity,
        unit_cost=cost(unit_cost),
        created_by=created_by[:120],
        occurred_at=when,
        **details,
    )
    db.add(movement)
    # Two first receipts of the same level at once both insert it; the loser gets a Conflict.
    records.flush(db, f"the movement of {where(item, location, lot)}")
    return movement


def take(
    db: Session,
    item: Item,
    location: Location,
    lot: str,
    quantity: Decimal,
    *,
    kind: str,
    created_by: str,
    reservation: Reservation | None = None,
    unit_cost: Decimal | None = None,
    **details: Any,
) -> Movement:
    """Remove `quantity` from a level: never more than is on hand, and never stock reserved for
    something else (`reservation` may take what it holds itself). Stock leaves at the average
    cost unless `unit_cost` says otherwise (a reversed receipt leaves at its own cost)."""
    stock = level(db, item.id, location.id, lot, lock=True)  # held until commit: see `level`
    have = qty(stock.on_hand) if stock is not None else ZERO
    if quantity > have:
        raise shortfall(item, location, lot, have, quantity)
    held = reserved(db, item.id, location.id, lot, excluding=reservation.id if reservation else None)
    if quantity > have - held:
        raise InvalidRequest(
            f"{where(item, location, lot)} has {num(have)} on hand but {num(held)} reserved, so "
            f"{num(have - held)} {item.unit} available; {num(quantity)} requested. Take at most "
            f"{num(have - held)}, or release a reservation (inventory.reservation_list item_id={item.id})"
        )
    return post(
        db,
        kind=kind,
        item=item,
        location=location,
        lot=lot,
        quantity=-quantity,
        unit_cost=item.unit_cost if unit_cost is None else unit_cost,
        created_by=created_by,
        reservation_id=reservation.id if reservation is not None else None,
        **details,
    )


def moving_average(before: Decimal, average: Decimal, quantity: Decimal, unit_cost: Decimal) -> Decimal:
    """The average cost after `quantity` at `unit_cost` joins (or, negative, leaves) `before`."""
    after = before + quantity
    if before <= 0 or after <= 0:
        return cost(unit_cost) if after > 0 else cost(average)
    return cost(max((before * cost(average) + quantity * cost(unit_cost)) / after, ZERO))


def receive(
    db: Session,
    item: Item,
    location: Location,
    lot: str,
    quantity: Decimal,
    unit_cost: Decimal | None,
    *,
    created_by: str,
    at: datetime | None = None,
    **details: Any,
) -> Movement:
    """Put received stock on a level, blending its cost into the item's moving average."""
    ensure_active(item)
    lot = lot_for(item, lot)
    price = cost(item.unit_cost if unit_cost is None else unit_cost)
    item.unit_cost = moving_average(total_on_hand(db, item.id), item.unit_cost, quantity, price)
    return post(
        db,
        kind="receive",
        item=item,
        location=location,
        lot=lot,
        quantity=quantity,
        unit_cost=price,
        created_by=created_by,
        at=at,
        **details,
    )


def transfer(
    db: Session,
    item: Item,
    source: Location,
    target: Location,
    lot: str,
    quantity: Decimal,
    *,
    created_by: str,
    at: datetime | None = None,
    reference: str = "",
) -> tuple[Movement, Movement]:
    """Move stock between two locations as an out and an in movement that name each other."""
    if source.id == target.id:
        raise InvalidRequest(f"from_location_id and to_location_id are both {source.id}; give two different locations")
    lot = lot_for(item, lot)
    out = take(db, item, source, lot, quantity, kind="transfer_out", created_by=created_by, at=at, reference=reference)
    into = post(
        db,
        kind="transfer_in",
        item=item,
        location=target,
        lot=lot,
        quantity=quantity,
        unit_cost=item.unit_cost,
        created_by=created_by,
        at=at,
        reference=reference,
        pair_id=out.id,
    )
    return out, into


def adjust(
    db: Session,
    item: Item,
    location: Location,
    lot: str,
    quantity: Decimal,
    *,
    reason: str,
    created_by: str,
    at: datetime | None = None,
    **details: Any,
) -> Movement:
    """Correct a level by a signed quantity at the average cost. A correction may leave less on
    hand than is reserved (the shelf is what it is); `shortage` reports it."""
    if quantity > 0:
        ensure_active(item)
    lot = lot_for(item, lot)
    return post(
        db,
        kind="adjust",
        item=item,
        location=location,
        lot=lot,
        quantity=quantity,
        unit_cost=item.unit_cost,
        created_by=created_by,
        at=at,
        reason=reason,
        **details,
    )


def shortage(db: Session, item: Item, location: Location, lot: str) -> Decimal:
    """How much more is reserved at a level than is on hand (0 when none)."""
    return max(reserved(db, item.id, location.id, lot) - on_hand(db, item.id, location.id, lot), ZERO)

"""Cycle counts: open a count of one location (its lines hold what the books said then),
record what the shelf holds, read the variances, then apply them as adjustments. At most one
count per location is open at a time, so two counters never correct the same shelf twice."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.inventory import ledger, serialize
from domains.inventory.entities import ITEM
from domains.inventory.inputs_flow import CountedLine
from domains.inventory.serialize import num, qty
from domains.inventory.tables import Count, CountLine, Location, Stock
from facade.kit import Conflict, InvalidRequest, utcnow


def create(db: Session, location: Location, item_ids: list[int] | None, note: str) -> Count:
    already = db.scalar(select(Count.id).where(Count.location_id == location.id, Count.status == "open"))
    if already is not None:
        raise Conflict(
            f"count {already} of location {location.id} ({location.label}) is still open; record and apply "
            "it (inventory.count_record, inventory.count_apply) or cancel it first"
        )
    query = select(Stock).where(Stock.location_id == location.id).order_by(Stock.item_id, Stock.lot)
    if item_ids is not None:
        items = [ITEM.fetch(db, i) for i in dict.fromkeys(item_ids)]
        query = query.where(Stock.item_id.in_([i.id for i in items]))
    else:
        query = query.where(Stock.on_hand > 0)
    count = Count(location=location, note=note, status="open")
    stocked = db.scalars(query).all()
    count.lines = [CountLine(item=s.item, lot=s.lot, expected_quantity=qty(s.on_hand)) for s in stocked]
    if item_ids is not None:
        # Items asked for but never stocked here are counted too: finding some is a variance.
        present = {s.item_id for s in stocked}
        count.lines += [
            CountLine(item=i, lot="", expected_quantity=Decimal(0))
            for i in items
            if i.id not in present and not i.track_lots
        ]
    if not count.lines:
        raise InvalidRequest(
            f"location {location.id} ({location.label}) holds no stock to count; give item_ids to count "
            "items expected there"
        )
    db.add(count)
    db.flush()
    return count


def _open(count: Count) -> Count:
    if count.status != "open":
        raise Conflict(f"count {count.id} is {count.status}; open a new one with inventory.count_create")
    return count


def record(db: Session, count: Count, lines: list[CountedLine]) -> Count:
    """Set counted quantities; an item found that the count did not expect gets a line of its own."""
    _open(count)
    by_key = {(line.item_id, line.lot): line for line in count.lines}
    for counted in lines:
        line = by_key.get((counted.item_id, counted.lot))
        if line is None:
            item = ITEM.fetch(db, counted.item_id)
            lot = ledger.lot_for(item, counted.lot)
            expected = ledger.on_hand(db, item.id, count.location_id, lot)
            line = CountLine(item=item, lot=lot, expected_quantity=expected)
            count.lines.append(line)
            by_key[(item.id, lot)] = line
        line.counted_quantity = counted.counted_quantity
    count.updated_at = utcnow()
    db.flush()
    return count


def detail(db: Session, count: Count) -> dict[str, Any]:
    """The count with each line's variance against what is on hand now (what applying would post)."""
    lines = []
    for line in count.lines:
        now = ledger.on_hand(db, line.item_id, count.location_id, line.lot)
        counted = qty(line.counted_quantity) if line.counted_quantity is not None else None
        lines.append(
            {
                "item_id": line.item_id,
                "sku": line.item.sku,
                "lot": line.lot,
                "expected_quantity": num(line.expected_quantity),
                "on_hand": num(now),
                "counted_quantity": num(counted),
                "variance": num(counted - now) if counted is not None else None,
            }
        )
    return {"count": {**serialize.count_summary(count), "lines": lines}}


def apply(db: Session, count: Count, created_by: str) -> dict[str, Any]:
    """Post one adjustment per line whose counted quantity differs from what is on hand."""
    _open(count)
    missing = [
        line.item.sku + (f" lot {line.lot}" if line.lot else "")
        for line in count.lines
        if line.counted_quantity is None
    ]
    if missing:
        raise InvalidRequest(
            f"count {count.id} has uncounted lines ({', '.join(missing)}); record them with inventory.count_record "
            "(counted_quantity 0 if none were found)"
        )
    movements = []
    for line in count.lines:
        variance = qty(line.counted_quantity or 0) - ledger.on_hand(db, line.item_id, count.location_id, line.lot)
        if variance != 0:
            movements.append(
                ledger.adjust(
                    db,
                    line.item,
                    count.location,
                    line.lot,
                    variance,
                    reason=f"cycle count {count.id}",
                    created_by=created_by,
                    count_id=count.id,
                )
            )
    count.status = "applied"
    count.applied_at = utcnow()
    db.flush()
    return {**detail(db, count), "adjustments": [serialize.movement(m) for m in movements]}


def cancel(db: Session, count: Count) -> Count:
    _open(count).status = "cancelled"
    count.updated_at = utcnow()
    db.flush()
    return count

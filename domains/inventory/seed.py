"""A small, believable demo: a fastener and electrical wholesaler with two warehouses. Written
only into an empty domain, always the same rows in the same order, so ids are 1..N on a fresh
database (capability examples rely on them). Stock is posted through the ledger, as a real
receipt or issue would be, so levels and movements agree from the start."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.inventory import ledger, purchasing
from domains.inventory.tables import (
    Category,
    Count,
    CountLine,
    Item,
    Location,
    PurchaseOrder,
    PurchaseOrderLine,
    Reservation,
    Supplier,
    Warehouse,
)

SEEDER = "seed"
T0 = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)


def at(month: int, day: int, hour: int = 10) -> datetime:
    return datetime(2026, month, day, hour, 0, tzinfo=UTC)


CATEGORIES = [
    ("Fasteners", "Bolts, nuts, washers and screws."),
    ("Electrical", "Cable, breakers and installation material."),
    ("Packaging", "Cartons and tape for outgoing shipments."),
    ("Safety", "Personal protective equipment."),
    ("Clearance", "Lines being phased out; empty since the spring sale."),  # category_delete's example
]
# name, email, phone, lead time (days)
SUPPLIERS = [
    ("Nordbolt Fasteners GmbH", "orders@nordbolt.example", "+49 40 555 0101", 5),
    ("Voltline Components", "sales@voltline.example", "+49 89 555 0102", 10),
    ("BoxCo Packaging", "hello@boxco.example", "+49 30 555 0103", 3),
]
WAREHOUSES = [
    ("MAIN", "Main warehouse", "Billstrasse 80, 20539 Hamburg"),
    ("EAST", "East depot", "Am Alten Flughafen 4, 04356 Leipzig"),
]
# warehouse (1-based), code, description
LOCATIONS = [
    (1, "RECV", "Receiving dock"),
    (1, "A-01", "Aisle A, bay 1"),
    (1, "A-02", "Aisle A, bay 2"),
    (1, "B-01", "Aisle B, bay 1 (safety gear)"),
    (2, "RECV", "Receiving dock"),
    (2, "A-01", "Aisle A, bay 1"),
    (1, "Z-99", "Old staging bay, emptied"),  # never stocked: location_delete's example
]
# sku, name, unit, category, supplier, unit cost, reorder point, reorder quantity, lots, archived
ItemRow = tuple[str, str, str, int, int | None, str, int, int, bool, bool]
ITEMS: list[ItemRow] = [
    ("BOLT-M8X40", "Hex bolt M8x40, zinc plated", "pcs", 1, 1, "0.12", 500, 2000, False, False),
    ("NUT-M8", "Hex nut M8, zinc plated", "pcs", 1, 1, "0.04", 500, 2000, False, False),
    ("CABLE-NYM-3X1.5", "NYM-J installation cable 3x1.5 mm2", "m", 2, 2, "0.85", 400, 500, False, False),
    ("MCB-B16", "Circuit breaker B16, 1-pole", "pcs", 2, 2, "6.40", 20, 50, False, False),
    ("BOX-403020", "Shipping carton 40x30x20 cm", "pcs", 3, 3, "0.95", 100, 400, False, False),
    ("TAPE-PP50", "Packing tape 50 mm x 66 m", "roll", 3, 3, "2.10", 24, 72, False, False),
    ("GLOVE-NITRILE-L", "Nitrile gloves size L, box of 100", "box", 4, None, "7.50", 15, 30, True, False),
    ("HELMET-WHITE", "Safety helmet, white", "pcs", 4, None, "14.90", 0, 0, False, False),
    ("LABEL-100X150", "Thermal shipping labels 100x150 mm (discontinued)", "roll", 3, 3, "3.20", 0, 0, False, False),
    ("WRAP-17MY", "Pallet stretch wrap 17 my", "roll", 3, 3, "11.80", 0, 0, False, True),
    # Never stocked, ordered or counted: item_delete's example.
    ("HOOK-S40", "S-hook 40 mm (listed by mistake)", "pcs", 1, None, "0.30", 0, 0, False, False),
]
# supplier, ordered at (None: a draft), lines (item, quantity, unit cost), expected date
OrderRow = tuple[int, datetime | None, list[tuple[int, int, str]], date | None]
ORDERS: list[OrderRow] = [
    (1, at(2, 16), [(1, 2000, "0.12"), (2, 2000, "0.04")], None),
    (2, at(2, 18), [(3, 500, "0.85"), (4, 40, "6.40")], None),
    (3, at(10, 20), [(5, 400, "0.95"), (6, 72, "2.10")], date(2026, 11, 2)),
    (2, None, [(4, 50, "6.40"), (3, 500, "0.82")], date(2026, 12, 15)),
    (3, None, [(5, 200, "0.95")], None),  # 5, a draft for purchase_order_delete's example
    (1, at(11, 26), [(2, 1000, "0.04")], date(2026, 12, 4)),  # 6, for purchase_order_cancel's
]
# reservations: item, location, quantity, reference, created
RESERVATIONS = [
    (1, 2, 200, "Sales order SO-2301", at(11, 20)),
    (4, 3, 5, "Job J-77 distribution board", at(11, 21)),
    (2, 6, 100, "Transfer to the Dresden site", at(11, 23)),
]


def seed(session: Session) -> None:
    """Insert the demo data set unless the domain already holds records of its own."""
    for table in (Item, Category, Supplier, Warehouse):
        if session.scalar(select(table.id).limit(1)) is not None:
            return
    clock = iter(range(60))

    def stamp() -> dict[str, datetime]:
        # A minute apart, so that records sort by creation the way they were listed.
        t = T0.replace(minute=next(clock))
        return {"created_at": t, "updated_at": t}

    def insert(rows: list[Any]) -> list[Any]:
        # Flushed kind by kind, in list order, so that ids follow the lists above.
        session.add_all(rows)
        session.flush()
        return rows

    insert([Category(name=n, description=d, **stamp()) for n, d in CATEGORIES])
    insert([Supplier(name=n, email=e, phone=p, lead_time_days=t, **stamp()) for n, e, p, t in SUPPLIERS])
    warehouses = insert([Warehouse(code=c, name=n, address=a, **stamp()) for c, n, a in WAREHOUSES])
    places = insert([Location(warehouse=warehouses[w - 1], code=c, description=d, **stamp()) for w, c, d in LOCATIONS])
    items = insert([_item(row, stamp()) for row in ITEMS])
    orders = insert([_order(row, items) for row in ORDERS])
    _movements(session, orders, items, places)
    insert(
        [
            Reservation(
                item=items[i - 1],
                location=places[lo - 1],
                quantity=Decimal(q),
                reference=r,
                created_by=SEEDER,
                created_at=t,
                updated_at=t,
            )
            for i, lo, q, r, t in RESERVATIONS
        ]
    )
    count = Count(location=places[5], note="Monthly count of the East depot", created_at=at(11, 25))
    count.updated_at = count.created_at
    # What the books held at EAST/A-01 when the count opened: 300 bolts and 300 nuts.
    count.lines = [CountLine(item=items[i], lot="", expected_quantity=Decimal(300)) for i in (0, 1)]
    # For count_cancel's example: tape expected at the receiving dock, not yet counted.
    dock = Count(location=places[0], note="Receiving dock spot check", created_at=at(11, 26))
    dock.updated_at = dock.created_at
    dock.lines = [CountLine(item=items[5], lot="", expected_quantity=Decimal(0))]
    # For count_apply's example: breakers in MAIN/A-02, counted one short of the books' 15.
    breakers = Count(location=places[2], note="Breaker recount", created_at=at(11, 26, 11))
    breakers.updated_at = breakers.created_at
    breakers.lines = [CountLine(item=items[3], lot="", expected_quantity=Decimal(15), counted_quantity=Decimal(14))]
    insert([count, dock, breakers])


def _item(row: ItemRow, stamps: dict[str, datetime]) -> Item:
    sku, name, unit, category, supplier, cost, point, quantity, lots, archived = row
    return Item(
        sku=sku,
        name=name,
        unit=unit,
        category_id=category,
        supplier_id=supplier,
        unit_cost=Decimal(cost),
        reorder_point=Decimal(point),
        reorder_quantity=Decimal(quantity),
        track_lots=lots,
        archived_at=at(1, 15) if archived else None,
        **stamps,
    )


def _order(row: OrderRow, items: list[Item]) -> PurchaseOrder:
    supplier, ordered, lines, expected = row
    stamp = ordered or at(11, 27)
    order = PurchaseOrder(
        supplier_id=supplier,
        status="ordered" if ordered else "draft",
        ordered_at=ordered,
        expected_date=expected,
        created_at=stamp,
        updated_at=stamp,
    )
    order.lines = [
        PurchaseOrderLine(item=items[i - 1], quantity=Decimal(q), unit_cost=Decimal(c)) for i, q, c in lines
    ]
    return order


# Eight months of trade, in time order so that movement ids follow it (noted on the right):
# (kind, item, location, lot, quantity, when, reference, reason); a transfer names its target
# location as the reference, a receipt of a purchase order names the order.
Event = tuple[str, int, int, str, int, datetime, str, str]
EVENTS: list[Event] = [
    ("order", 1, 2, "", 2000, at(2, 20), "1", ""),  # 1
    ("order", 2, 2, "", 2000, at(2, 20), "1", ""),  # 2
    ("order", 3, 3, "", 500, at(2, 27), "2", ""),  # 3
    ("order", 4, 3, "", 40, at(2, 27), "2", ""),  # 4
    ("receive", 8, 4, "", 12, at(3, 2), "DN-88213", ""),  # 5
    ("receive", 7, 4, "L2603-A", 20, at(3, 5), "DN-88240", ""),  # 6
    ("issue", 1, 2, "", 600, at(4, 10), "WO-1180", "Frame assembly"),  # 7
    ("issue", 2, 2, "", 600, at(4, 10, 11), "WO-1180", "Frame assembly"),  # 8
    ("transfer", 1, 2, "", 300, at(4, 15), "6", ""),  # 9-10
    ("transfer", 2, 2, "", 300, at(4, 15, 11), "6", ""),  # 11-12
    ("issue", 3, 3, "", 180, at(5, 20), "WO-1215", "Control cabinet wiring"),  # 13
    ("issue", 4, 3, "", 25, at(5, 20, 11), "WO-1215", "Control cabinet wiring"),  # 14
    ("adjust", 7, 4, "L2603-A", -2, at(6, 15), "", "Two boxes damaged by a forklift"),  # 15
    ("issue", 7, 4, "L2603-A", 6, at(10, 1), "Safety kit refill", ""),  # 16
    ("order", 5, 5, "", 300, at(10, 26), "3", ""),  # 17
    ("issue", 5, 5, "", 120, at(11, 10), "SO-2291", "Outgoing shipments"),  # 18
    ("issue", 1, 2, "", 150, at(11, 12), "WO-1302", "Frame assembly"),  # 19
]


def _movements(db: Session, orders: list[PurchaseOrder], items: list[Item], places: list[Location]) -> None:
    for kind, i, lo, lot, amount, when, reference, reason in EVENTS:
        item, location, quantity = items[i - 1], places[lo - 1], Decimal(amount)
        if kind == "order":
            order = orders[int(reference) - 1]
            line = next(line for line in order.lines if line.item_id == item.id)
            ledger.receive(
                db,
                item,
                location,
                lot,
                quantity,
                line.unit_cost,
                created_by=SEEDER,
                at=when,
                reference=f"DN-{8800 + order.id}",
                reason=f"PO-{order.id:05d} line {line.id}",
                po_line_id=line.id,
            )
            line.received_quantity = quantity
            purchasing.refresh_status(order)
            order.closed_at = when if order.status == "received" else None
            order.updated_at = when
        elif kind == "receive":
            ledger.receive(db, item, location, lot, quantity, None, created_by=SEEDER, at=when, reference=reference)
        elif kind == "issue":
            ledger.take(
                db,
                item,
                location,
                lot,
                quantity,
                kind="issue",
                created_by=SEEDER,
                at=when,
                reference=reference,
                reason=reason,
            )
        elif kind == "transfer":
            ledger.transfer(db, item, location, places[int(reference) - 1], lot, quantity, created_by=SEEDER, at=when)
        else:
            ledger.adjust(db, item, location, lot, quantity, reason=reason, created_by=SEEDER, at=when)

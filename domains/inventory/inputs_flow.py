"""The arguments of the purchasing, reservation, cycle-count and report capabilities."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import Field

from domains.inventory.inputs import Args, Cost, Format, Id, Level, Lot, Page, Quantity, Reference, Text
from domains.inventory.tables import CountStatus, OrderStatus, ReservationStatus

# Purchase orders


class OrderLine(Args):
    item_id: Id
    quantity: Quantity
    unit_cost: Cost | None = Field(None, description="Default: the item's current unit cost.")


Lines = Annotated[list[OrderLine], Field(max_length=100)]


class PurchaseOrderCreate(Args):
    supplier_id: Id
    lines: Lines = Field(default_factory=list)
    expected_date: date | None = None
    notes: Text = ""


class PurchaseOrderUpdate(Args):
    purchase_order_id: Id
    supplier_id: Id | None = Field(None, description="Drafts only.")
    lines: Lines | None = Field(None, description="Replaces every line; drafts only.")
    expected_date: date | None = None
    notes: Text | None = None


class PurchaseOrderFilter(Page):
    supplier_id: Id | None = None
    status: OrderStatus | None = None
    item_id: Id | None = Field(None, description="Orders with a line for this item.")


class PurchaseOrderRef(Args):
    purchase_order_id: Id


class ReceiptLine(Args):
    line_id: Id
    quantity: Quantity
    lot: Lot = ""


class PurchaseOrderReceive(Args):
    purchase_order_id: Id
    location_id: Id
    lines: Annotated[list[ReceiptLine], Field(min_length=1, max_length=100)] | None = Field(
        None, description="Default: everything outstanding (items without lots)."
    )
    reference: Reference = Field("", description="E.g. a delivery note number.")


# Reservations


class ReservationCreate(Args):
    item_id: Id
    location_id: Id
    quantity: Quantity
    reference: Annotated[str, Field(min_length=1, max_length=200, description="What the stock is held for.")]
    lot: Lot = ""


class ReservationFilter(Page):
    item_id: Id | None = None
    location_id: Id | None = None
    status: ReservationStatus | None = None


class ReservationRef(Args):
    reservation_id: Id


# Cycle counts


class CountCreate(Args):
    location_id: Id
    item_ids: Annotated[list[Id], Field(min_length=1, max_length=200)] | None = Field(
        None, description="Default: every item stocked there."
    )
    note: Text = ""


class CountFilter(Page):
    location_id: Id | None = None
    status: CountStatus | None = None


class CountRef(Args):
    count_id: Id


class CountedLine(Args):
    item_id: Id
    counted_quantity: Level
    lot: Lot = ""


class CountRecord(Args):
    count_id: Id
    lines: list[CountedLine] = Field(min_length=1, max_length=200)


# Reports


class ValuationReport(Page):
    warehouse_id: Id | None = None
    category_id: Id | None = None


class ReorderReport(Page):
    supplier_id: Id | None = Field(None, description="Preferred supplier.")


class DeadStockReport(Page):
    days: int = Field(90, ge=1, le=3650, description="No outbound movement for at least this many days.")
    as_of: date | None = Field(None, description="Default: today.")


class StockSnapshot(Page):
    as_of: date = Field(description="Stock at the end of this day (UTC).")
    item_id: Id | None = None
    warehouse_id: Id | None = None


class MovementHistoryExport(Args):
    format: Format = "csv"
    item_id: Id | None = None
    date_from: date | None = None
    date_to: date | None = None
    limit: int = Field(1000, ge=1, le=5000)
    offset: int = Field(0, ge=0)


class StockAudit(Args):
    item_id: Id | None = None

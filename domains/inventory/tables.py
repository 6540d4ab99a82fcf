"""The inventory domain's tables.

Catalogue: categories, suppliers, warehouses with their bin locations, and items. Stock: one
level per item × location × lot, kept equal to the sum of the append-only movements that
touched it (`ledger.post` is the only writer of both). Purchasing: purchase orders and their
lines. Reservations hold stock for a purpose; cycle counts compare shelves with the books.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from sqlalchemy import Boolean, CheckConstraint, Date, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from domains.inventory.columns import COST, QUANTITY
from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

MovementKind = Literal["receive", "issue", "transfer_out", "transfer_in", "adjust", "reversal"]
OrderStatus = Literal["draft", "ordered", "partially_received", "received", "cancelled"]
# Orders whose outstanding quantities are still coming ("on order").
OPEN_ORDER: tuple[str, ...] = ("ordered", "partially_received")
ReservationStatus = Literal["active", "released", "fulfilled"]
CountStatus = Literal["open", "applied", "cancelled"]


class Category(Base):
    __tablename__ = "inventory_category"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Supplier(Base):
    __tablename__ = "inventory_supplier"
    __table_args__ = (CheckConstraint("lead_time_days >= 0", name="lead_time_days"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    email: Mapped[str | None] = mapped_column(String(254))
    phone: Mapped[str | None] = mapped_column(String(40))
    lead_time_days: Mapped[int] = mapped_column(Integer, default=7)
    notes: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Warehouse(Base):
    __tablename__ = "inventory_warehouse"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    address: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    locations: Mapped[list[Location]] = relationship(back_populates="warehouse", order_by="Location.id")


class Location(Base):
    """A bin, shelf or dock inside a warehouse; its code is unique within the warehouse."""

    __tablename__ = "inventory_location"
    __table_args__ = (UniqueConstraint("warehouse_id", "code"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The unique (warehouse_id, code) constraint's index serves lookups by warehouse.
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("inventory_warehouse.id"))
    code: Mapped[str] = mapped_column(String(32))
    description: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    warehouse: Mapped[Warehouse] = relationship(back_populates="locations", lazy="joined")

    @property
    def label(self) -> str:
        return f"{self.warehouse.code}/{self.code}"


class Item(Base):
    """A stock-keeping unit. `unit_cost` is the moving average cost of the stock on hand."""

    __tablename__ = "inventory_item"
    __table_args__ = (
        CheckConstraint("unit_cost >= 0", name="unit_cost"),
        CheckConstraint("reorder_point >= 0", name="reorder_point"),
        CheckConstraint("reorder_quantity >= 0", name="reorder_quantity"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sku: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    category_id: Mapped[int | None] = mapped_column(
        ForeignKey("inventory_category.id", ondelete="SET NULL"), index=True
    )
    supplier_id: Mapped[int | None] = mapped_column(
        ForeignKey("inventory_supplier.id", ondelete="SET NULL"), index=True
    )
    unit: Mapped[str] = mapped_column(String(16))
    unit_cost: Mapped[Decimal] = mapped_column(COST, default=Decimal(0))
    reorder_point: Mapped[Decimal] = mapped_column(QUANTITY, default=Decimal(0))
    reorder_quantity: Mapped[Decimal] = mapped_column(QUANTITY, default=Decimal(0))
    track_lots: Mapped[bool] = mapped_column(Boolean, default=False)
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()


class Stock(Base):
    """On-hand quantity of one item at one location (and lot; "" when the item has none).

    The CHECK is the last line of defence: `ledger.post` refuses a negative level first, with a
    message that says what is on hand."""

    __tablename__ = "inventory_stock"
    __table_args__ = (
        UniqueConstraint("item_id", "location_id", "lot"),
        CheckConstraint("on_hand >= 0", name="on_hand"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("inventory_item.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("inventory_location.id"), index=True)
    lot: Mapped[str] = mapped_column(String(64), default="")
    on_hand: Mapped[Decimal] = mapped_column(QUANTITY, default=Decimal(0))
    updated_at: Mapped[datetime] = updated_column()

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")


class Movement(Base):
    """One signed change of one stock level; never updated or deleted once written. A transfer
    is two rows (out, then in, the in row's `pair_id` naming the out row); a mistake is undone
    by a `reversal` row whose `reverses_id` names the movement it cancels."""

    __tablename__ = "inventory_movement"
    __table_args__ = (
        one_of("kind", MovementKind),
        CheckConstraint("quantity <> 0", name="quantity"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(20))
    item_id: Mapped[int] = mapped_column(ForeignKey("inventory_item.id"), index=True)
    location_id: Mapped[int] = mapped_column(ForeignKey("inventory_location.id"), index=True)
    lot: Mapped[str] = mapped_column(String(64), default="")
    quantity: Mapped[Decimal] = mapped_column(QUANTITY)
    unit_cost: Mapped[Decimal] = mapped_column(COST)
    reason: Mapped[str] = mapped_column(Text, default="")
    reference: Mapped[str] = mapped_column(String(120), default="")
    po_line_id: Mapped[int | None] = mapped_column(ForeignKey("inventory_po_line.id"))
    reservation_id: Mapped[int | None] = mapped_column(ForeignKey("inventory_reservation.id"))
    count_id: Mapped[int | None] = mapped_column(ForeignKey("inventory_count.id"))
    pair_id: Mapped[int | None] = mapped_column(ForeignKey("inventory_movement.id"))
    reverses_id: Mapped[int | None] = mapped_column(ForeignKey("inventory_movement.id"), unique=True)
    created_by: Mapped[str] = mapped_column(String(120))
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")


class PurchaseOrder(Base):
    __tablename__ = "inventory_po"
    __table_args__ = (one_of("status", OrderStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("inventory_supplier.id"), index=True)
    status: Mapped[str] = mapped_column(String(20), default="draft")
    expected_date: Mapped[date | None] = mapped_column(Date)
    notes: Mapped[str] = mapped_column(Text, default="")
    ordered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    supplier: Mapped[Supplier] = relationship(lazy="joined")
    # The database cascades deletes (ON DELETE CASCADE); passive_deletes spares loading lines.
    lines: Mapped[list[PurchaseOrderLine]] = relationship(
        back_populates="order", cascade="all, delete-orphan", passive_deletes=True, order_by="PurchaseOrderLine.id"
    )


class PurchaseOrderLine(Base):
    """One item of a purchase order, at most once per order; never received beyond its quantity."""

    __tablename__ = "inventory_po_line"
    __table_args__ = (
        UniqueConstraint("purchase_order_id", "item_id"),
        CheckConstraint("quantity > 0", name="quantity"),
        CheckConstraint("received_quantity >= 0 AND received_quantity <= quantity", name="received_quantity"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    purchase_order_id: Mapped[int] = mapped_column(ForeignKey("inventory_po.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("inventory_item.id"), index=True)
    quantity: Mapped[Decimal] = mapped_column(QUANTITY)
    received_quantity: Mapped[Decimal] = mapped_column(QUANTITY, default=Decimal(0))
    unit_cost: Mapped[Decimal] = mapped_column(COST)

    order: Mapped[PurchaseOrder] = relationship(back_populates="lines")
    item: Mapped[Item] = relationship(lazy="joined")


class Reservation(Base):
    """Stock held for a purpose: available = on hand − active reservations."""

    __tablename__ = "inventory_reservation"
    __table_args__ = (
        one_of("status", ReservationStatus),
        CheckConstraint("quantity > 0", name="quantity"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("inventory_item.id"), index=True)
    location_id: Mapped[int] = mapped_column(ForeignKey("inventory_location.id"), index=True)
    lot: Mapped[str] = mapped_column(String(64), default="")
    quantity: Mapped[Decimal] = mapped_column(QUANTITY)
    reference: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="active")
    created_by: Mapped[str] = mapped_column(String(120))
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")


class Count(Base):
    """A cycle count of one location: lines are counted, then the variances applied as adjustments."""

    __tablename__ = "inventory_count"
    __table_args__ = (one_of("status", CountStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    location_id: Mapped[int] = mapped_column(ForeignKey("inventory_location.id"), index=True)
    status: Mapped[str] = mapped_column(String(20), default="open")
    note: Mapped[str] = mapped_column(Text, default="")
    applied_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[CountLine]] = relationship(
        back_populates="count", cascade="all, delete-orphan", passive_deletes=True, order_by="CountLine.id"
    )


class CountLine(Base):
    """One item (and lot) of a count: the quantity the books held when the count opened, and the
    quantity found on the shelf once counted."""

    __tablename__ = "inventory_count_line"
    __table_args__ = (
        UniqueConstraint("count_id", "item_id", "lot"),
        CheckConstraint("counted_quantity >= 0", name="counted_quantity"),
        NO_ID_REUSE,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    count_id: Mapped[int] = mapped_column(ForeignKey("inventory_count.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("inventory_item.id"), index=True)
    lot: Mapped[str] = mapped_column(String(64), default="")
    expected_quantity: Mapped[Decimal] = mapped_column(QUANTITY)
    counted_quantity: Mapped[Decimal | None] = mapped_column(QUANTITY)

    count: Mapped[Count] = relationship(back_populates="lines")
    item: Mapped[Item] = relationship(lazy="joined")

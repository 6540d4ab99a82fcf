"""inventory: initial tables

Revision ID: inventory_0001
Revises:
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "inventory_0001"
down_revision = None
branch_labels = ("inventory",)
depends_on = None

# Frozen copies of the schema in domains/inventory/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def _id() -> sa.Column[Any]:
    return sa.Column("id", sa.Integer(), autoincrement=True, nullable=False)


def _stamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _timestamps() -> list[sa.Column[Any]]:
    return [_stamp("created_at"), _stamp("updated_at")]


def _quantity(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.Numeric(precision=18, scale=3), nullable=nullable)


def _cost(name: str) -> sa.Column[Any]:
    return sa.Column(name, sa.Numeric(precision=18, scale=4), nullable=False)


def _lot() -> sa.Column[Any]:
    return sa.Column("lot", sa.String(length=64), nullable=False)


def _fk(table: str, column: str, target: str, ondelete: str | None = None) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete=ondelete
    )


def _check(table: str, name: str, sql: str) -> sa.CheckConstraint:
    return sa.CheckConstraint(sql, name=op.f(f"ck_{table}_{name}"))


def _pk(table: str) -> sa.PrimaryKeyConstraint:
    return sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}"))


def _unique(table: str, *columns: str) -> sa.UniqueConstraint:
    return sa.UniqueConstraint(*columns, name=op.f(f"uq_{table}_{columns[0]}"))


def _index(table: str, column: str) -> None:
    op.create_index(op.f(f"ix_{table}_{column}"), table, [column], unique=False)


INDEXES: list[tuple[str, str]] = [
    ("inventory_item", "category_id"),
    ("inventory_item", "supplier_id"),
    ("inventory_po", "supplier_id"),
    ("inventory_po_line", "item_id"),
    ("inventory_reservation", "item_id"),
    ("inventory_reservation", "location_id"),
    ("inventory_count", "location_id"),
    ("inventory_count_line", "item_id"),
    ("inventory_stock", "location_id"),
    ("inventory_movement", "item_id"),
    ("inventory_movement", "location_id"),
    ("inventory_movement", "occurred_at"),
]

# In creation order; dropped in reverse.
TABLES = [
    "inventory_category",
    "inventory_supplier",
    "inventory_warehouse",
    "inventory_location",
    "inventory_item",
    "inventory_po",
    "inventory_po_line",
    "inventory_reservation",
    "inventory_count",
    "inventory_count_line",
    "inventory_stock",
    "inventory_movement",
]


def upgrade() -> None:
    t = "inventory_category"
    op.create_table(
        t,
        _id(),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        *_timestamps(),
        _pk(t),
        _unique(t, "name"),
        **NO_ID_REUSE,
    )
    t = "inventory_supplier"
    op.create_table(
        t,
        _id(),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("phone", sa.String(length=40), nullable=True),
        sa.Column("lead_time_days", sa.Integer(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        *_timestamps(),
        _check(t, "lead_time_days", "lead_time_days >= 0"),
        _pk(t),
        _unique(t, "name"),
        **NO_ID_REUSE,
    )
    t = "inventory_warehouse"
    op.create_table(
        t,
        _id(),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        *_timestamps(),
        _pk(t),
        _unique(t, "code"),
        **NO_ID_REUSE,
    )
    t = "inventory_location"
    op.create_table(
        t,
        _id(),
        sa.Column("warehouse_id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        *_timestamps(),
        _fk(t, "warehouse_id", "inventory_warehouse"),
        _pk(t),
        _unique(t, "warehouse_id", "code"),
        **NO_ID_REUSE,
    )
    t = "inventory_item"
    op.create_table(
        t,
        _id(),
        sa.Column("sku", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("category_id", sa.Integer(), nullable=True),
        sa.Column("supplier_id", sa.Integer(), nullable=True),
        sa.Column("unit", sa.String(length=16), nullable=False),
        _cost("unit_cost"),
        _quantity("reorder_point"),
        _quantity("reorder_quantity"),
        sa.Column("track_lots", sa.Boolean(), nullable=False),
        _stamp("archived_at", nullable=True),
        *_timestamps(),
        _check(t, "unit_cost", "unit_cost >= 0"),
        _check(t, "reorder_point", "reorder_point >= 0"),
        _check(t, "reorder_quantity", "reorder_quantity >= 0"),
        _fk(t, "category_id", "inventory_category", "SET NULL"),
        _fk(t, "supplier_id", "inventory_supplier", "SET NULL"),
        _pk(t),
        _unique(t, "sku"),
        **NO_ID_REUSE,
    )
    t = "inventory_po"
    op.create_table(
        t,
        _id(),
        sa.Column("supplier_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("expected_date", sa.Date(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=False),
        _stamp("ordered_at", nullable=True),
        _stamp("closed_at", nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('draft', 'ordered', 'partially_received', 'received', 'cancelled')"),
        _fk(t, "supplier_id", "inventory_supplier"),
        _pk(t),
        **NO_ID_REUSE,
    )
    t = "inventory_po_line"
    op.create_table(
        t,
        _id(),
        sa.Column("purchase_order_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        _quantity("quantity"),
        _quantity("received_quantity"),
        _cost("unit_cost"),
        _check(t, "quantity", "quantity > 0"),
        _check(t, "received_quantity", "received_quantity >= 0 AND received_quantity <= quantity"),
        _fk(t, "purchase_order_id", "inventory_po", "CASCADE"),
        _fk(t, "item_id", "inventory_item"),
        _pk(t),
        _unique(t, "purchase_order_id", "item_id"),
        **NO_ID_REUSE,
    )
    t = "inventory_reservation"
    op.create_table(
        t,
        _id(),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        _lot(),
        _quantity("quantity"),
        sa.Column("reference", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_by", sa.String(length=120), nullable=False),
        _stamp("closed_at", nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('active', 'released', 'fulfilled')"),
        _check(t, "quantity", "quantity > 0"),
        _fk(t, "item_id", "inventory_item"),
        _fk(t, "location_id", "inventory_location"),
        _pk(t),
        **NO_ID_REUSE,
    )
    t = "inventory_count"
    op.create_table(
        t,
        _id(),
        sa.Column("location_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        _stamp("applied_at", nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('open', 'applied', 'cancelled')"),
        _fk(t, "location_id", "inventory_location"),
        _pk(t),
        **NO_ID_REUSE,
    )
    t = "inventory_count_line"
    op.create_table(
        t,
        _id(),
        sa.Column("count_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        _lot(),
        _quantity("expected_quantity"),
        _quantity("counted_quantity", nullable=True),
        _check(t, "counted_quantity", "counted_quantity >= 0"),
        _fk(t, "count_id", "inventory_count", "CASCADE"),
        _fk(t, "item_id", "inventory_item"),
        _pk(t),
        _unique(t, "count_id", "item_id", "lot"),
        **NO_ID_REUSE,
    )
    t = "inventory_stock"
    op.create_table(
        t,
        _id(),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        _lot(),
        _quantity("on_hand"),
        _stamp("updated_at"),
        _check(t, "on_hand", "on_hand >= 0"),
        _fk(t, "item_id", "inventory_item"),
        _fk(t, "location_id", "inventory_location"),
        _pk(t),
        _unique(t, "item_id", "location_id", "lot"),
        **NO_ID_REUSE,
    )
    t = "inventory_movement"
    op.create_table(
        t,
        _id(),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        _lot(),
        _quantity("quantity"),
        _cost("unit_cost"),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("reference", sa.String(length=120), nullable=False),
        sa.Column("po_line_id", sa.Integer(), nullable=True),
        sa.Column("reservation_id", sa.Integer(), nullable=True),
        sa.Column("count_id", sa.Integer(), nullable=True),
        sa.Column("pair_id", sa.Integer(), nullable=True),
        sa.Column("reverses_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(length=120), nullable=False),
        _stamp("occurred_at"),
        _check(
            t, "kind", "kind IN ('receive', 'issue', 'transfer_out', 'transfer_in', 'adjust', 'reversal')"
        ),
        _check(t, "quantity", "quantity <> 0"),
        _fk(t, "item_id", "inventory_item"),
        _fk(t, "location_id", "inventory_location"),
        _fk(t, "po_line_id", "inventory_po_line"),
        _fk(t, "reservation_id", "inventory_reservation"),
        _fk(t, "count_id", "inventory_count"),
        _fk(t, "pair_id", "inventory_movement"),
        _fk(t, "reverses_id", "inventory_movement"),
        _pk(t),
        _unique(t, "reverses_id"),
        **NO_ID_REUSE,
    )
    for table, column in INDEXES:
        _index(table, column)


def downgrade() -> None:
    for table, column in reversed(INDEXES):
        op.drop_index(op.f(f"ix_{table}_{column}"), table_name=table)
    for table in reversed(TABLES):
        op.drop_table(table)

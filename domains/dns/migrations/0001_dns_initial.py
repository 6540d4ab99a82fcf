"""dns: initial tables

Revision ID: dns_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "dns_0001"
down_revision = None
branch_labels = ("dns",)
depends_on = None

# Frozen copies of the schema in domains/dns/tables.py as of this revision; a migration must
# not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}
TYPES = "'A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'PTR'"
ACTIONS = "'zone_create', 'zone_update', 'import', 'create', 'update', 'delete'"


def upgrade() -> None:
    op.create_table(
        "dns_zone",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=253), nullable=False),
        sa.Column("serial", sa.BigInteger(), nullable=False),
        sa.Column("ttl", sa.Integer(), nullable=False),
        sa.Column("primary_ns", sa.String(length=253), nullable=False),
        sa.Column("admin_email", sa.String(length=254), nullable=False),
        sa.Column("refresh", sa.Integer(), nullable=False),
        sa.Column("retry", sa.Integer(), nullable=False),
        sa.Column("expire", sa.Integer(), nullable=False),
        sa.Column("minimum", sa.Integer(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dns_zone")),
        sa.UniqueConstraint("name", name=op.f("uq_dns_zone_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "dns_record",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("zone_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=253), nullable=False),
        sa.Column("type", sa.String(length=10), nullable=False),
        sa.Column("value", sa.String(length=2000), nullable=False),
        sa.Column("ttl", sa.Integer(), nullable=True),
        sa.Column("priority", sa.Integer(), nullable=True),
        sa.Column("weight", sa.Integer(), nullable=True),
        sa.Column("port", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(f"type IN ({TYPES})", name=op.f("ck_dns_record_type")),
        sa.ForeignKeyConstraint(
            ["zone_id"], ["dns_zone.id"], name=op.f("fk_dns_record_zone_id_dns_zone"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dns_record")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_dns_record_zone_id"), "dns_record", ["zone_id"], unique=False)
    op.create_table(
        "dns_change",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("zone_id", sa.Integer(), nullable=False),
        sa.Column("record_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("serial", sa.BigInteger(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("agent", sa.String(length=120), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(f"action IN ({ACTIONS})", name=op.f("ck_dns_change_action")),
        sa.ForeignKeyConstraint(
            ["zone_id"], ["dns_zone.id"], name=op.f("fk_dns_change_zone_id_dns_zone"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dns_change")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_dns_change_zone_id"), "dns_change", ["zone_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_dns_change_zone_id"), table_name="dns_change")
    op.drop_table("dns_change")
    op.drop_index(op.f("ix_dns_record_zone_id"), table_name="dns_record")
    op.drop_table("dns_record")
    op.drop_table("dns_zone")

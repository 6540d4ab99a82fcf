"""hosts: initial tables

Revision ID: hosts_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "hosts_0001"
down_revision = None
branch_labels = ("hosts",)
depends_on = None

# Frozen copies of the schema in domains/hosts/tables.py as of this revision; a migration must
# not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}
ROLES = "'web', 'database', 'cache', 'worker', 'proxy', 'storage', 'monitoring', 'other'"


def upgrade() -> None:
    op.create_table(
        "hosts_host",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=253), nullable=False),
        sa.Column("address", sa.String(length=253), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("ssh_port", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(f"role IN ({ROLES})", name=op.f("ck_hosts_host_role")),
        sa.CheckConstraint("ssh_port BETWEEN 1 AND 65535", name=op.f("ck_hosts_host_ssh_port")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hosts_host")),
        sa.UniqueConstraint("name", name=op.f("uq_hosts_host_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "hosts_tag",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(
            ["host_id"], ["hosts_host.id"], name=op.f("fk_hosts_tag_host_id_hosts_host"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hosts_tag")),
        sa.UniqueConstraint("host_id", "tag", name=op.f("uq_hosts_tag_host_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_hosts_tag_tag"), "hosts_tag", ["tag"], unique=False)
    op.create_table(
        "hosts_probe",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("target", sa.String(length=2000), nullable=False),
        sa.Column("port", sa.Integer(), nullable=True),
        sa.Column("reachable", sa.Boolean(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("probed_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('tcp', 'http', 'scan')", name=op.f("ck_hosts_probe_kind")),
        sa.ForeignKeyConstraint(
            ["host_id"], ["hosts_host.id"], name=op.f("fk_hosts_probe_host_id_hosts_host"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hosts_probe")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_hosts_probe_host_id"), "hosts_probe", ["host_id"], unique=False)
    op.create_index(op.f("ix_hosts_probe_probed_at"), "hosts_probe", ["probed_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_hosts_probe_probed_at"), table_name="hosts_probe")
    op.drop_index(op.f("ix_hosts_probe_host_id"), table_name="hosts_probe")
    op.drop_table("hosts_probe")
    op.drop_index(op.f("ix_hosts_tag_tag"), table_name="hosts_tag")
    op.drop_table("hosts_tag")
    op.drop_table("hosts_host")

"""services: initial tables

Revision ID: services_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "services_0001"
down_revision = None
branch_labels = ("services",)
depends_on = None

# Frozen copies of the schema in domains/services/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def upgrade() -> None:
    op.create_table(
        "services_service",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("working_dir", sa.String(length=255), nullable=False),
        sa.Column("port", sa.Integer(), nullable=True),
        sa.Column("health_url", sa.String(length=500), nullable=True),
        sa.Column("log_file", sa.String(length=255), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("pid_created", sa.Float(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("port IS NULL OR (port >= 1 AND port <= 65535)", name=op.f("ck_services_service_port")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_services_service")),
        sa.UniqueConstraint("name", name=op.f("uq_services_service_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "services_event",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("service_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("exit_code", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('started', 'stopped', 'killed', 'exited')", name=op.f("ck_services_event_kind")),
        sa.ForeignKeyConstraint(
            ["service_id"],
            ["services_service.id"],
            name=op.f("fk_services_event_service_id_services_service"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_services_event")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_services_event_service_id"), "services_event", ["service_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_services_event_service_id"), table_name="services_event")
    op.drop_table("services_event")
    op.drop_table("services_service")

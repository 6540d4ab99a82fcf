"""monitoring: initial tables

Revision ID: monitoring_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "monitoring_0001"
down_revision = None
branch_labels = ("monitoring",)
depends_on = None

# Frozen copies of the schema in domains/monitoring/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def _fk(table: str, column: str = "check_id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["monitoring_check.id"], name=op.f(f"fk_{table}_{column}_monitoring_check"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "monitoring_check",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("warn_threshold", sa.Float(), nullable=True),
        sa.Column("critical_threshold", sa.Float(), nullable=True),
        sa.Column("interval_seconds", sa.Integer(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("state_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_value", sa.Float(), nullable=True),
        sa.Column("last_checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('tcp', 'http', 'disk', 'process', 'file_age')", name=op.f("ck_monitoring_check_kind")
        ),
        sa.CheckConstraint(
            "state IN ('unknown', 'ok', 'warn', 'critical')", name=op.f("ck_monitoring_check_state")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_monitoring_check")),
        sa.UniqueConstraint("name", name=op.f("uq_monitoring_check_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "monitoring_result",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.Integer(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("unit", sa.String(length=20), nullable=False),
        sa.Column("warn_threshold", sa.Float(), nullable=True),
        sa.Column("critical_threshold", sa.Float(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("silenced", sa.Boolean(), nullable=False),
        sa.CheckConstraint("state IN ('ok', 'warn', 'critical')", name=op.f("ck_monitoring_result_state")),
        _fk("monitoring_result"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_monitoring_result")),
        **NO_ID_REUSE,
    )
    op.create_index(
        "ix_monitoring_result_check_id_checked_at", "monitoring_result", ["check_id", "checked_at"], unique=False
    )
    op.create_index(op.f("ix_monitoring_result_checked_at"), "monitoring_result", ["checked_at"], unique=False)
    op.create_table(
        "monitoring_alert",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.Integer(), nullable=False),
        sa.Column("severity", sa.String(length=20), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("acknowledged_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("acknowledged_by", sa.String(length=120), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.CheckConstraint("severity IN ('warn', 'critical')", name=op.f("ck_monitoring_alert_severity")),
        _fk("monitoring_alert"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_monitoring_alert")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_monitoring_alert_check_id"), "monitoring_alert", ["check_id"], unique=False)
    op.create_table(
        "monitoring_silence",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("monitoring_silence"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_monitoring_silence")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_monitoring_silence_check_id"), "monitoring_silence", ["check_id"], unique=False)
    op.create_table(
        "monitoring_sample",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cpu_percent", sa.Float(), nullable=False),
        sa.Column("memory_percent", sa.Float(), nullable=False),
        sa.Column("memory_used_bytes", sa.BigInteger(), nullable=False),
        sa.Column("disk_path", sa.String(length=500), nullable=False),
        sa.Column("disk_percent", sa.Float(), nullable=False),
        sa.Column("load_1", sa.Float(), nullable=False),
        sa.Column("load_5", sa.Float(), nullable=False),
        sa.Column("load_15", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_monitoring_sample")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_monitoring_sample_taken_at"), "monitoring_sample", ["taken_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_monitoring_sample_taken_at"), table_name="monitoring_sample")
    op.drop_table("monitoring_sample")
    op.drop_index(op.f("ix_monitoring_silence_check_id"), table_name="monitoring_silence")
    op.drop_table("monitoring_silence")
    op.drop_index(op.f("ix_monitoring_alert_check_id"), table_name="monitoring_alert")
    op.drop_table("monitoring_alert")
    op.drop_index(op.f("ix_monitoring_result_checked_at"), table_name="monitoring_result")
    op.drop_index("ix_monitoring_result_check_id_checked_at", table_name="monitoring_result")
    op.drop_table("monitoring_result")
    op.drop_table("monitoring_check")

"""backups: initial tables

Revision ID: backups_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "backups_0001"
down_revision = None
branch_labels = ("backups",)
depends_on = None

# Frozen copies of the schema in domains/backups/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def upgrade() -> None:
    op.create_table(
        "backups_job",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("schedule", sa.String(length=100), nullable=False),
        sa.Column("retention_count", sa.Integer(), nullable=False),
        sa.Column("include", sa.JSON(), nullable=False),
        sa.Column("exclude", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("retention_count >= 1", name=op.f("ck_backups_job_retention_count")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_backups_job")),
        sa.UniqueConstraint("name", name=op.f("uq_backups_job_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "backups_run",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("archive", sa.String(length=500), nullable=True),
        sa.Column("archive_bytes", sa.BigInteger(), nullable=True),
        sa.Column("archive_sha256", sa.String(length=64), nullable=True),
        sa.Column("file_count", sa.Integer(), nullable=False),
        sa.Column("source_bytes", sa.BigInteger(), nullable=False),
        sa.Column("skipped_links", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('succeeded', 'failed')", name=op.f("ck_backups_run_status")),
        sa.ForeignKeyConstraint(
            ["job_id"], ["backups_job.id"], name=op.f("fk_backups_run_job_id_backups_job"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_backups_run")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_backups_run_job_id"), "backups_run", ["job_id"], unique=False)
    op.create_table(
        "backups_run_file",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(length=1024), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("modified_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["backups_run.id"], name=op.f("fk_backups_run_file_run_id_backups_run"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_backups_run_file")),
        sa.UniqueConstraint("run_id", "path", name=op.f("uq_backups_run_file_run_id")),
        **NO_ID_REUSE,
    )


def downgrade() -> None:
    op.drop_table("backups_run_file")
    op.drop_index(op.f("ix_backups_run_job_id"), table_name="backups_run")
    op.drop_table("backups_run")
    op.drop_table("backups_job")

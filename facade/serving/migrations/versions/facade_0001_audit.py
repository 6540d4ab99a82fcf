"""facade: the audit log

Revision ID: facade_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "facade_0001"
down_revision = None
branch_labels = ("facade",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "facade_audit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(120), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=True),
        sa.Column("agent", sa.String(120), nullable=True),
        sa.Column("conversation", sa.String(200), nullable=True),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_facade_audit"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_facade_audit_at", "facade_audit", ["at"])
    op.create_index("ix_facade_audit_card_id", "facade_audit", ["card_id"])


def downgrade() -> None:
    op.drop_index("ix_facade_audit_card_id", table_name="facade_audit")
    op.drop_index("ix_facade_audit_at", table_name="facade_audit")
    op.drop_table("facade_audit")

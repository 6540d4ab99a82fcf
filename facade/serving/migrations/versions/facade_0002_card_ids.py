"""facade: card ids issued by the database

Revision ID: facade_0002
Revises: facade_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "facade_0002"
down_revision = "facade_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "facade_card_ids",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_facade_card_ids"),
        sqlite_autoincrement=True,
    )
    # Ids issued before (a per-process or Redis counter) are named in the audit log: continue
    # past the highest of them, so that no id the log already holds is issued again.
    bind = op.get_bind()
    highest = bind.execute(sa.text("SELECT MAX(card_id) FROM facade_audit")).scalar()
    if highest:
        if bind.dialect.name == "postgresql":
            bind.execute(sa.text("SELECT setval(pg_get_serial_sequence('facade_card_ids', 'id'), :n)"), {"n": highest})
        else:  # SQLite's AUTOINCREMENT continues past the highest id ever inserted
            bind.execute(sa.text("INSERT INTO facade_card_ids (id, at) VALUES (:n, CURRENT_TIMESTAMP)"), {"n": highest})


def downgrade() -> None:
    op.drop_table("facade_card_ids")

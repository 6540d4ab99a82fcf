"""mail: initial tables

Revision ID: mail_0001
Revises:
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "mail_0001"
down_revision = None
branch_labels = ("mail",)
depends_on = None

# Frozen copies of the schema in domains/mail/tables.py as of this revision; a migration must not
# import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def _id() -> sa.Column[Any]:
    return sa.Column("id", sa.Integer(), autoincrement=True, nullable=False)


def _stamp(name: str) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def _fk(table: str, column: str, target: str, ondelete: str | None = None) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "mail_folder",
        _id(),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        _stamp("created_at"),
        _stamp("updated_at"),
        sa.CheckConstraint(
            "role IN ('inbox', 'sent', 'drafts', 'archive', 'trash', 'custom')", name=op.f("ck_mail_folder_role")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_folder")),
        sa.UniqueConstraint("name", name=op.f("uq_mail_folder_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "mail_thread",
        _id(),
        sa.Column("subject", sa.String(length=500), nullable=False),
        sa.Column("subject_key", sa.String(length=500), nullable=False),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_thread")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_mail_thread_subject_key"), "mail_thread", ["subject_key"], unique=False)
    op.create_table(
        "mail_label",
        _id(),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("color", sa.String(length=7), nullable=True),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_label")),
        sa.UniqueConstraint("name", name=op.f("uq_mail_label_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "mail_message",
        _id(),
        sa.Column("folder_id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("in_reply_to", sa.String(length=255), nullable=True),
        sa.Column("reference_ids", sa.Text(), nullable=False),
        sa.Column("from_addr", sa.String(length=320), nullable=False),
        sa.Column("to_addrs", sa.Text(), nullable=False),
        sa.Column("cc_addrs", sa.Text(), nullable=False),
        sa.Column("bcc_addrs", sa.Text(), nullable=False),
        sa.Column("subject", sa.String(length=500), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("headers", sa.Text(), nullable=False),
        _stamp("received_at"),
        sa.Column("is_read", sa.Boolean(), nullable=False),
        sa.Column("is_flagged", sa.Boolean(), nullable=False),
        _stamp("created_at"),
        _stamp("updated_at"),
        _fk("mail_message", "folder_id", "mail_folder"),
        _fk("mail_message", "thread_id", "mail_thread", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_message")),
        **NO_ID_REUSE,
    )
    for column in ("folder_id", "thread_id", "message_id", "received_at"):
        op.create_index(op.f(f"ix_mail_message_{column}"), "mail_message", [column], unique=False)
    op.create_table(
        "mail_message_label",
        _id(),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("label_id", sa.Integer(), nullable=False),
        _fk("mail_message_label", "message_id", "mail_message", "CASCADE"),
        _fk("mail_message_label", "label_id", "mail_label", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_message_label")),
        sa.UniqueConstraint("message_id", "label_id", name=op.f("uq_mail_message_label_message_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_mail_message_label_label_id"), "mail_message_label", ["label_id"], unique=False)
    op.create_table(
        "mail_contact",
        _id(),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        _stamp("created_at"),
        _stamp("updated_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_contact")),
        sa.UniqueConstraint("email", name=op.f("uq_mail_contact_email")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "mail_rule",
        _id(),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("from_contains", sa.String(length=200), nullable=True),
        sa.Column("subject_contains", sa.String(length=200), nullable=True),
        sa.Column("body_contains", sa.String(length=200), nullable=True),
        sa.Column("move_to_folder_id", sa.Integer(), nullable=True),
        sa.Column("add_label_id", sa.Integer(), nullable=True),
        sa.Column("mark_read", sa.Boolean(), nullable=False),
        sa.Column("flag", sa.Boolean(), nullable=False),
        _stamp("created_at"),
        _stamp("updated_at"),
        _fk("mail_rule", "move_to_folder_id", "mail_folder"),
        _fk("mail_rule", "add_label_id", "mail_label"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_rule")),
        sa.UniqueConstraint("name", name=op.f("uq_mail_rule_name")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_mail_rule_move_to_folder_id"), "mail_rule", ["move_to_folder_id"], unique=False)
    op.create_index(op.f("ix_mail_rule_add_label_id"), "mail_rule", ["add_label_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_mail_rule_add_label_id"), table_name="mail_rule")
    op.drop_index(op.f("ix_mail_rule_move_to_folder_id"), table_name="mail_rule")
    op.drop_table("mail_rule")
    op.drop_table("mail_contact")
    op.drop_index(op.f("ix_mail_message_label_label_id"), table_name="mail_message_label")
    op.drop_table("mail_message_label")
    for column in ("received_at", "message_id", "thread_id", "folder_id"):
        op.drop_index(op.f(f"ix_mail_message_{column}"), table_name="mail_message")
    op.drop_table("mail_message")
    op.drop_table("mail_label")
    op.drop_index(op.f("ix_mail_thread_subject_key"), table_name="mail_thread")
    op.drop_table("mail_thread")
    op.drop_table("mail_folder")

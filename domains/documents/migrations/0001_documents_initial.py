"""documents: initial tables

Revision ID: documents_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "documents_0001"
down_revision = None
branch_labels = ("documents",)
depends_on = None

# Frozen copies of the schema in domains/documents/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def upgrade() -> None:
    op.create_table(
        "documents_document",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("path", sa.String(length=500), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("word_count", sa.Integer(), nullable=False),
        sa.Column("page_count", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("file_modified_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("indexed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('docx', 'xlsx', 'pdf', 'csv', 'md', 'txt')", name=op.f("ck_documents_document_kind")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_documents_document")),
        sa.UniqueConstraint("path", name=op.f("uq_documents_document_path")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "documents_tag",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=50), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["documents_document.id"],
            name=op.f("fk_documents_tag_document_id_documents_document"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_documents_tag")),
        sa.UniqueConstraint("document_id", "name", name=op.f("uq_documents_tag_document_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_documents_tag_name"), "documents_tag", ["name"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_documents_tag_name"), table_name="documents_tag")
    op.drop_table("documents_tag")
    op.drop_table("documents_document")

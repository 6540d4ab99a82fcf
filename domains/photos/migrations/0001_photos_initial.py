"""photos: initial tables

Revision ID: photos_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "photos_0001"
down_revision = None
branch_labels = ("photos",)
depends_on = None

# Frozen copies of the schema in domains/photos/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def _photo_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["photo_id"], ["photos_photo.id"], name=op.f(f"fk_{table}_photo_id_photos_photo"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "photos_photo",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("path", sa.String(length=500), nullable=False),
        sa.Column("format", sa.String(length=10), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("camera_make", sa.String(length=100), nullable=True),
        sa.Column("camera_model", sa.String(length=100), nullable=True),
        sa.Column("latitude", sa.Float(), nullable=True),
        sa.Column("longitude", sa.Float(), nullable=True),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("caption", sa.Text(), nullable=False),
        sa.Column("file_modified_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("rating >= 0 AND rating <= 5", name=op.f("ck_photos_photo_rating")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_photos_photo")),
        sa.UniqueConstraint("path", name=op.f("uq_photos_photo_path")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_photos_photo_sha256"), "photos_photo", ["sha256"], unique=False)
    op.create_index(op.f("ix_photos_photo_taken_at"), "photos_photo", ["taken_at"], unique=False)
    op.create_table(
        "photos_album",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_photos_album")),
        sa.UniqueConstraint("name", name=op.f("uq_photos_album_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "photos_album_photo",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("album_id", sa.Integer(), nullable=False),
        sa.Column("photo_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["album_id"], ["photos_album.id"], name=op.f("fk_photos_album_photo_album_id_photos_album"), ondelete="CASCADE"
        ),
        _photo_fk("photos_album_photo"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_photos_album_photo")),
        sa.UniqueConstraint("album_id", "photo_id", name=op.f("uq_photos_album_photo_album_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_photos_album_photo_photo_id"), "photos_album_photo", ["photo_id"], unique=False)
    op.create_table(
        "photos_tag",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("photo_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=50), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _photo_fk("photos_tag"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_photos_tag")),
        sa.UniqueConstraint("photo_id", "name", name=op.f("uq_photos_tag_photo_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_photos_tag_name"), "photos_tag", ["name"], unique=False)
    op.create_table(
        "photos_person",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("photo_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("box_left", sa.Integer(), nullable=True),
        sa.Column("box_top", sa.Integer(), nullable=True),
        sa.Column("box_width", sa.Integer(), nullable=True),
        sa.Column("box_height", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _photo_fk("photos_person"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_photos_person")),
        sa.UniqueConstraint("photo_id", "name", name=op.f("uq_photos_person_photo_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_photos_person_name"), "photos_person", ["name"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_photos_person_name"), table_name="photos_person")
    op.drop_table("photos_person")
    op.drop_index(op.f("ix_photos_tag_name"), table_name="photos_tag")
    op.drop_table("photos_tag")
    op.drop_index(op.f("ix_photos_album_photo_photo_id"), table_name="photos_album_photo")
    op.drop_table("photos_album_photo")
    op.drop_table("photos_album")
    op.drop_index(op.f("ix_photos_photo_taken_at"), table_name="photos_photo")
    op.drop_index(op.f("ix_photos_photo_sha256"), table_name="photos_photo")
    op.drop_table("photos_photo")

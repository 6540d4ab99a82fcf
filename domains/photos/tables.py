"""The photos domain's tables: a photo per image file, albums holding photos in order, tags
and the people labelled in a photo."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, updated_column, utcnow


class Photo(Base):
    """An image file under the root, with what its pixels and EXIF say and what people added."""

    __tablename__ = "photos_photo"
    __table_args__ = (CheckConstraint("rating >= 0 AND rating <= 5", name="rating"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    path: Mapped[str] = mapped_column(String(500), unique=True)
    format: Mapped[str] = mapped_column(String(10))
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    # Duplicates are found by content hash, so it is indexed.
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    taken_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    camera_make: Mapped[str | None] = mapped_column(String(100))
    camera_model: Mapped[str | None] = mapped_column(String(100))
    # Degrees, as EXIF gives them; a float holds ~1 cm precision, more than any phone's GPS.
    latitude: Mapped[float | None] = mapped_column(Float)
    longitude: Mapped[float | None] = mapped_column(Float)
    rating: Mapped[int | None] = mapped_column(Integer)
    caption: Mapped[str] = mapped_column(Text, default="")
    file_modified_at: Mapped[datetime] = mapped_column(UTCDateTime)
    imported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = updated_column()

    # The database cascades deletes (ON DELETE CASCADE); passive_deletes spares loading children.
    tags: Mapped[list[PhotoTag]] = relationship(
        back_populates="photo", cascade="all, delete-orphan", passive_deletes=True, order_by="PhotoTag.name"
    )
    people: Mapped[list[PersonLabel]] = relationship(
        back_populates="photo", cascade="all, delete-orphan", passive_deletes=True, order_by="PersonLabel.id"
    )
    memberships: Mapped[list[AlbumPhoto]] = relationship(
        back_populates="photo", cascade="all, delete-orphan", passive_deletes=True, order_by="AlbumPhoto.album_id"
    )


class Album(Base):
    __tablename__ = "photos_album"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    memberships: Mapped[list[AlbumPhoto]] = relationship(
        back_populates="album", cascade="all, delete-orphan", passive_deletes=True, order_by="AlbumPhoto.position"
    )


class AlbumPhoto(Base):
    """A photo in an album, at a position; a photo is in an album at most once."""

    __tablename__ = "photos_album_photo"
    __table_args__ = (UniqueConstraint("album_id", "photo_id"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    album_id: Mapped[int] = mapped_column(ForeignKey("photos_album.id", ondelete="CASCADE"))
    photo_id: Mapped[int] = mapped_column(ForeignKey("photos_photo.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    added_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    album: Mapped[Album] = relationship(back_populates="memberships")
    photo: Mapped[Photo] = relationship(back_populates="memberships")


class PhotoTag(Base):
    """A label on a photo; a photo carries a tag at most once."""

    __tablename__ = "photos_tag"
    __table_args__ = (UniqueConstraint("photo_id", "name"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    photo_id: Mapped[int] = mapped_column(ForeignKey("photos_photo.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(50), index=True)
    created_at: Mapped[datetime] = created_column()

    photo: Mapped[Photo] = relationship(back_populates="tags")


class PersonLabel(Base):
    """A person shown in a photo, optionally with the box (in pixels) around them."""

    __tablename__ = "photos_person"
    __table_args__ = (UniqueConstraint("photo_id", "name"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    photo_id: Mapped[int] = mapped_column(ForeignKey("photos_photo.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(120), index=True)
    box_left: Mapped[int | None] = mapped_column(Integer)
    box_top: Mapped[int | None] = mapped_column(Integer)
    box_width: Mapped[int | None] = mapped_column(Integer)
    box_height: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = created_column()

    photo: Mapped[Photo] = relationship(back_populates="people")

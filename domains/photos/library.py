"""The library index: a photo's row holds what its file says (size, hash, dimensions, EXIF)
and what people added (caption, rating, tags, people, albums)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from facade.kit import Conflict, Entity, Tags, iso, utcnow

from domains.photos.images import Facts, facts
from domains.photos.sandbox import display
from domains.photos.tables import Album, AlbumPhoto, Photo, PhotoTag

PHOTO_LOAD = (selectinload(Photo.tags), selectinload(Photo.people), selectinload(Photo.memberships))


def render(photo: Photo) -> dict[str, Any]:
    return {
        "id": photo.id,
        "path": photo.path,
        "format": photo.format,
        "width": photo.width,
        "height": photo.height,
        "size_bytes": photo.size_bytes,
        "sha256": photo.sha256,
        "taken_at": iso(photo.taken_at),
        "camera_make": photo.camera_make,
        "camera_model": photo.camera_model,
        "latitude": photo.latitude,
        "longitude": photo.longitude,
        "rating": photo.rating,
        "caption": photo.caption,
        "tags": [t.name for t in photo.tags],
        "people": [label_of(p) for p in photo.people],
        "album_ids": [m.album_id for m in photo.memberships],
        "file_modified_at": iso(photo.file_modified_at),
        "imported_at": iso(photo.imported_at),
        "updated_at": iso(photo.updated_at),
    }


def label_of(person: Any) -> dict[str, Any]:
    box = None
    if person.box_width is not None:
        box = {"left": person.box_left, "top": person.box_top, "width": person.box_width, "height": person.box_height}
    return {"name": person.name, "box": box}


def render_album(album: Album) -> dict[str, Any]:
    ids = [m.photo_id for m in album.memberships]
    return {
        "id": album.id,
        "name": album.name,
        "description": album.description,
        "photo_count": len(ids),
        "photo_ids": ids,
        "created_at": iso(album.created_at),
        "updated_at": iso(album.updated_at),
    }


PHOTO: Entity[Photo] = Entity("photos", "photo", "photos", Photo, render=render, load=PHOTO_LOAD)
TAGS: Tags[Photo] = Tags(PHOTO, PhotoTag)
ALBUM: Entity[Album] = Entity(
    "photos", "album", "albums", Album, render=render_album, load=(selectinload(Album.memberships),)
)


def by_path(db: Session, rel: str) -> Photo | None:
    return db.scalar(select(Photo).where(Photo.path == rel).options(*PHOTO_LOAD))


def apply(photo: Photo, found: Facts) -> None:
    """Copy what the file says into the row."""
    photo.format = found.format
    photo.width, photo.height = found.width, found.height
    photo.size_bytes = found.size_bytes
    photo.sha256 = found.sha256
    photo.file_modified_at = found.modified
    photo.taken_at = found.exif.taken_at
    photo.camera_make = found.exif.camera_make
    photo.camera_model = found.exif.camera_model
    photo.latitude = found.exif.latitude
    photo.longitude = found.exif.longitude


def register(
    db: Session,
    real: Path,
    given: str,
    *,
    caption: str = "",
    tags: Iterable[str] = (),
    now: datetime | None = None,
) -> Photo:
    """A new row for the image at `real`; refused when the file is already in the library."""
    rel = display(real)
    existing = by_path(db, rel)
    if existing is not None:
        raise Conflict(f"{rel} is already photo {existing.id}; read it with photos.photo_get")
    found = facts(real, given)
    photo = Photo(path=rel, caption=caption, tags=[], people=[], memberships=[])
    apply(photo, found)
    photo.imported_at = photo.updated_at = now or utcnow()
    TAGS.add(photo, tags)
    db.add(photo)
    db.flush()
    return photo


def refresh(photo: Photo, real: Path) -> bool:
    """Read the file again into its row; True when its content changed."""
    found = facts(real, photo.path)
    changed = found.sha256 != photo.sha256
    apply(photo, found)
    return changed


def add_to_album(album: Album, photo: Photo) -> bool:
    """Put `photo` at the end of `album`; False when it is already there."""
    if any(m.photo_id == photo.id for m in album.memberships):
        return False
    position = max((m.position for m in album.memberships), default=0) + 1
    album.memberships.append(AlbumPhoto(photo=photo, position=position))
    return True

"""The photos themselves: list, get, search, import one file, edit its caption and rating,
get its thumbnail, delete it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, or_, select

from facade.kit import CallContext, Content, Image, InvalidRequest, Toolset, records, within_days

from domains.photos import inputs
from domains.photos.images import encode, load_bytes, need_image_name, opened, upright
from domains.photos.library import ALBUM, PHOTO, PHOTO_LOAD, register, render
from domains.photos.sandbox import existing_file, folder_prefix, os_errors, remove_file, resolve, write_file
from domains.photos.tables import AlbumPhoto, PersonLabel, Photo, PhotoTag

tools = Toolset()

THUMBNAILS = ".thumbnails"  # inside the root, hidden from rescans by its leading dot


def folder_condition(folder: str) -> list[ColumnElement[bool]]:
    prefix = folder_prefix(resolve(folder))
    return [Photo.path.startswith(prefix, autoescape=True)] if prefix else []


def _photo_where(args: inputs.PhotoFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.album_id is not None:
        conditions.append(Photo.memberships.any(AlbumPhoto.album_id == args.album_id))
    if args.folder:
        conditions.extend(folder_condition(args.folder))
    return conditions


records.add_list(
    tools,
    PHOTO,
    inputs.PhotoFilter,
    example={"album_id": 1},
    where=_photo_where,
    references={"album_id": ALBUM},
    description="List photos, optionally by album, format or folder.",
)
records.add_get(tools, PHOTO, example_id=1)


@tools.capability(
    "photo_search", read_only=True, example={"camera": "canon", "taken_from": "2026-05-01", "taken_to": "2026-05-31"}
)
def photo_search(ctx: CallContext, args: inputs.PhotoSearch) -> dict[str, Any]:
    """Find photos by date range, tag, album, camera, person, rating, GPS or caption text."""
    if args.taken_from and args.taken_to and args.taken_from > args.taken_to:
        raise InvalidRequest("taken_from is after taken_to; swap them")
    if args.album_id is not None:
        ALBUM.fetch(ctx.db, args.album_id)
    conditions = within_days(Photo.taken_at, args.taken_from, args.taken_to)
    if args.tag is not None:
        conditions.append(Photo.tags.any(PhotoTag.name == args.tag))
    if args.album_id is not None:
        conditions.append(Photo.memberships.any(AlbumPhoto.album_id == args.album_id))
    if args.camera:
        camera = args.camera.lower()
        conditions.append(or_(
            func.lower(Photo.camera_make).contains(camera, autoescape=True),
            func.lower(Photo.camera_model).contains(camera, autoescape=True),
        ))
    if args.person is not None:
        conditions.append(Photo.people.any(func.lower(PersonLabel.name) == args.person.lower()))
    if args.min_rating is not None:
        conditions.append(Photo.rating >= args.min_rating)
    if args.has_gps is not None:
        conditions.append(Photo.latitude.is_not(None) if args.has_gps else Photo.latitude.is_(None))
    if args.text:
        needle = args.text.lower()
        conditions.append(or_(
            func.lower(Photo.caption).contains(needle, autoescape=True),
            func.lower(Photo.path).contains(needle, autoescape=True),
        ))
    total = ctx.db.scalar(select(func.count()).select_from(Photo).where(*conditions)) or 0
    rows = ctx.db.scalars(
        select(Photo)
        .where(*conditions)
        .options(*PHOTO_LOAD)
        .order_by(Photo.taken_at.is_(None), Photo.taken_at, Photo.id)  # undated photos last
        .limit(args.limit)
        .offset(args.offset)
    )
    return {"photos": [render(p) for p in rows], "total": total}


@tools.capability(
    "photo_add", example={"path": "inbox/IMG_3001.jpg", "caption": "Ribeira at dusk", "tags": ["porto"]}
)
def photo_add(ctx: CallContext, args: inputs.PhotoAdd) -> dict[str, Any]:
    """Import an image file from the library folder, reading its dimensions and EXIF."""
    real = existing_file(args.path)
    need_image_name(real, args.path)
    return {"photo": render(register(ctx.db, real, args.path, caption=args.caption, tags=args.tags))}


records.add_update(
    tools,
    PHOTO,
    inputs.PhotoUpdate,
    example={"photo_id": 1, "rating": 5, "caption": "Sunset over the Tagus from Santa Catarina"},
    description="Change a photo's caption or star rating.",
)


# Read-only for the caller: the thumbnail it may write is a cache, invisible but for speed.
@tools.capability("thumbnail_get", read_only=True, example={"photo_id": 1, "size": 256})
def thumbnail_get(ctx: CallContext, args: inputs.ThumbnailGet) -> dict[str, Any] | Content:
    """Get a photo's JPEG thumbnail, made once and cached in the library."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    # Named by content hash, so an edited photo gets a fresh thumbnail and copies share one.
    rel = f"{THUMBNAILS}/{photo.sha256[:16]}-{args.size}.jpg"
    thumb = resolve(rel)
    with os_errors(rel):
        cached = thumb.is_file()
    if cached:
        data = load_bytes(thumb, rel)
        with opened(data, rel) as image:
            width, height = image.size
    else:
        source = existing_file(photo.path)
        with opened(load_bytes(source, photo.path), photo.path) as image:
            small = upright(image)
            small.thumbnail((args.size, args.size))
            width, height = small.size
            data = encode(small, "JPEG", quality=85)
        write_file(thumb, rel, data, overwrite=True)
    result: dict[str, Any] = {
        "photo_id": photo.id, "path": rel, "width": width, "height": height, "size_bytes": len(data), "cached": cached,
    }
    if args.include_data:  # the JPEG itself, as an image a client shows and a vision model sees
        return Content(Image(data, "image/jpeg"), data=result)
    return result


# With delete_file the photo's file is gone for good: the host asks its user first (approval 1).
@tools.capability("photo_delete", approval=1, destructive=True, idempotent=True, example={"photo_id": 8, "delete_file": True})
def photo_delete(ctx: CallContext, args: inputs.PhotoDelete) -> dict[str, Any]:
    """Remove a photo from the library, and delete its file when asked."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    path = photo.path
    ctx.db.delete(photo)
    ctx.db.flush()
    file_deleted = remove_file(path) if args.delete_file else False
    return {"deleted": {"photo_id": args.photo_id, "path": path}, "file_deleted": file_deleted}

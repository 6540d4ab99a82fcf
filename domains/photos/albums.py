"""Albums: ordered collections of photos; create, read, edit, delete, fill and empty them,
move photos between them in bulk, and export one as a zip."""

from __future__ import annotations

import json
import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from facade.kit import CallContext, Conflict, InvalidRequest, NotFound, Toolset, progress, records

from domains.photos import inputs
from domains.photos.library import ALBUM, PHOTO, add_to_album, render_album
from domains.photos.sandbox import display, os_errors, resolve
from domains.photos.tables import Album, AlbumPhoto, Photo

tools = Toolset()

COMPRESSED = {"jpeg", "png", "webp", "gif"}  # storing these again in a zip gains nothing


def _name_free(db: Session, name: str, except_id: int | None = None) -> None:
    # Case-insensitive, so that "Garden" and "garden" cannot both exist to confuse a reader.
    clash = db.scalar(select(Album.id).where(func.lower(Album.name) == name.lower(), Album.id != except_id))
    if clash is not None:
        raise Conflict(f"album {clash} is already named {name!r}; choose another name")


records.add_create(
    tools,
    ALBUM,
    inputs.AlbumCreate,
    example={"name": "Best of 2026", "description": "The photos worth printing."},
    check=lambda db, values: _name_free(db, values["name"]),
    description="Create an empty album.",
)
records.add_get(tools, ALBUM, example_id=1)


def _album_where(args: inputs.AlbumFilter) -> list[ColumnElement[bool]]:
    if args.photo_id is None:
        return []
    return [Album.memberships.any(AlbumPhoto.photo_id == args.photo_id)]


records.add_list(
    tools, ALBUM, inputs.AlbumFilter, example={}, where=_album_where, references={"photo_id": PHOTO},
    description="List albums, optionally those holding a given photo.",
)
records.add_update(
    tools,
    ALBUM,
    inputs.AlbumUpdate,
    example={"album_id": 2, "description": "Spring and summer in the back garden."},
    check=lambda db, album, changes: _name_free(db, changes["name"], album.id) if changes.get("name") else None,
    description="Rename an album or change its description.",
)


@tools.capability("album_photo_add", idempotent=True, example={"album_id": 3, "photo_ids": [1, 6]})
def album_photo_add(ctx: CallContext, args: inputs.AlbumPhotos) -> dict[str, Any]:
    """Add photos to the end of an album."""
    album = ALBUM.fetch(ctx.db, args.album_id)
    photos = [PHOTO.fetch(ctx.db, photo_id) for photo_id in dict.fromkeys(args.photo_ids)]
    added = [p.id for p in photos if add_to_album(album, p)]
    ctx.db.flush()
    return {"album": render_album(album), "added": added}


@tools.capability("album_photo_remove", idempotent=True, example={"album_id": 1, "photo_ids": [2]})
def album_photo_remove(ctx: CallContext, args: inputs.AlbumPhotos) -> dict[str, Any]:
    """Take photos out of an album; the photos stay in the library."""
    album = ALBUM.fetch(ctx.db, args.album_id)
    wanted = set(args.photo_ids)
    held = {m.photo_id for m in album.memberships}
    if wanted - held:
        raise NotFound(
            f"photos {sorted(wanted - held)} are not in album {album.id}; its photos are listed by photos.album_get"
        )
    for membership in [m for m in album.memberships if m.photo_id in wanted]:
        album.memberships.remove(membership)
    ctx.db.flush()
    return {"album": render_album(album), "removed": sorted(wanted)}


records.add_delete(
    tools,
    ALBUM,
    example_id=4,
    check=lambda db, album: {"released_photo_ids": [m.photo_id for m in album.memberships]},
    description="Delete an album; its photos stay in the library.",
)


@tools.capability(
    "album_bulk_move", idempotent=True, example={"album_id": 3, "photo_ids": [4, 5], "from_album_id": 2}
)
def album_bulk_move(ctx: CallContext, args: inputs.AlbumBulkMove) -> dict[str, Any]:
    """Move many photos into an album, out of one album or all others, reporting each."""
    target = ALBUM.fetch(ctx.db, args.album_id)
    if args.from_album_id == args.album_id:
        raise InvalidRequest("from_album_id is the target album itself; give another album or leave it out")
    source = ALBUM.fetch(ctx.db, args.from_album_id) if args.from_album_id is not None else None
    results: list[dict[str, Any]] = []
    for photo_id in dict.fromkeys(args.photo_ids):
        photo = ctx.db.get(Photo, photo_id)
        if photo is None:
            results.append({"photo_id": photo_id, "error": f"photo {photo_id} does not exist"})
            continue
        leaving = [m for m in photo.memberships if m.album_id != target.id and (source is None or m.album_id == source.id)]
        for membership in leaving:
            photo.memberships.remove(membership)
        add_to_album(target, photo)
        results.append({"photo_id": photo_id, "left_album_ids": [m.album_id for m in leaving]})
    ctx.db.flush()
    return {"album": render_album(target), "results": results, "failed": sum(1 for r in results if "error" in r)}


@tools.capability("album_export", example={"album_id": 1})
def album_export(ctx: CallContext, args: inputs.AlbumExport) -> dict[str, Any]:
    """Export an album's photos, in order, with a JSON manifest, as a zip in the library."""
    album = ALBUM.fetch(ctx.db, args.album_id)
    dest = args.dest or f"exports/{_slug(album.name)}.zip"
    real = resolve(dest)
    if real.suffix.lower() != ".zip":
        raise InvalidRequest(f"{dest} must end in .zip; rename it")
    with os_errors(dest):
        if real.exists() and not args.overwrite:
            raise Conflict(f"{dest} already exists; pass overwrite=true to replace it, or give another dest")
    photos = [ctx.db.get(Photo, m.photo_id) for m in album.memberships]
    written, missing, manifest = _write_zip(real, dest, [p for p in photos if p is not None])
    with os_errors(dest):
        size = real.stat().st_size
    return {"album_id": album.id, "path": display(real), "size_bytes": size, "photos": written, "missing": missing, "manifest": manifest}


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "album"


def _write_zip(real: Path, dest: str, photos: list[Photo]) -> tuple[int, list[str], list[dict[str, Any]]]:
    """Write the zip whole or not at all; returns (photos written, paths missing, manifest)."""
    manifest: list[dict[str, Any]] = []
    missing: list[str] = []
    with os_errors(dest):
        real.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=real.parent, prefix=".tmp-", suffix=".zip")
        os.close(handle)
        try:
            with zipfile.ZipFile(temporary, "w") as archive:
                for position, photo in enumerate(progress.counted(photos, "photos exported"), start=1):
                    try:
                        source = resolve(photo.path)
                        name = f"{position:03d}-{source.name}"
                        kind = zipfile.ZIP_STORED if photo.format in COMPRESSED else zipfile.ZIP_DEFLATED
                        archive.write(source, name, compress_type=kind)
                    except (OSError, ValueError) as exc:  # a vanished file is reported, not fatal
                        missing.append(f"{photo.path} ({getattr(exc, 'strerror', None) or exc})")
                        continue
                    manifest.append({
                        "file": name, "photo_id": photo.id, "caption": photo.caption,
                        "taken_at": photo.taken_at.isoformat() if photo.taken_at else None,
                        "tags": [t.name for t in photo.tags],
                    })
                archive.writestr("album.json", json.dumps(manifest, indent=2, ensure_ascii=False), zipfile.ZIP_DEFLATED)
            os.replace(temporary, real)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    return len(manifest), missing, manifest

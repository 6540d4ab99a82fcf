"""The library as a whole: duplicates, statistics, rescanning the folder, purging thumbnails."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from facade.kit import CallContext, DomainError, InvalidRequest, Toolset, deadline, progress

from domains.photos import inputs
from domains.photos.catalogue import THUMBNAILS, folder_condition
from domains.photos.images import is_image_name
from domains.photos.library import PHOTO_LOAD, refresh, register
from domains.photos.sandbox import display, os_errors, resolve
from domains.photos.tables import Album, PersonLabel, Photo, PhotoTag

tools = Toolset()


@tools.capability("duplicate_find", read_only=True, example={})
def duplicate_find(ctx: CallContext, args: inputs.Duplicates) -> dict[str, Any]:
    """Find photos whose files are byte-for-byte identical, grouped by content hash."""
    groups_query = (
        select(Photo.sha256, func.count(Photo.id), func.min(Photo.size_bytes))
        .group_by(Photo.sha256)
        .having(func.count(Photo.id) > 1)
    )
    hashes = ctx.db.execute(groups_query.order_by(func.min(Photo.id))).all()
    chunk = hashes[args.offset : args.offset + args.limit]
    groups = []
    for sha, count, size in chunk:
        members = ctx.db.execute(select(Photo.id, Photo.path).where(Photo.sha256 == sha).order_by(Photo.id)).all()
        groups.append({"sha256": sha, "size_bytes": size, "photos": [{"id": i, "path": p} for i, p in members]})
    wasted = sum((count - 1) * size for _, count, size in hashes)
    return {"groups": groups, "total": len(hashes), "wasted_bytes": wasted}


@tools.capability("library_stats", read_only=True, example={})
def library_stats(ctx: CallContext, args: inputs.Everything) -> dict[str, Any]:
    """Summarise the library: photos, bytes, formats, cameras, months, ratings, tags and people."""
    db = ctx.db
    rows = db.execute(
        select(Photo.format, Photo.size_bytes, Photo.camera_make, Photo.camera_model, Photo.taken_at, Photo.rating,
               Photo.latitude)
    ).all()
    cameras = Counter(_camera(make, model) for _, _, make, model, *_ in rows if make or model)
    # Months are counted here rather than in SQL, where each backend formats dates its own way.
    months = Counter(r.taken_at.strftime("%Y-%m") for r in rows if r.taken_at is not None)

    def top(column: Any, key: str) -> list[dict[str, Any]]:
        found = db.execute(select(column, func.count()).group_by(column).order_by(func.count().desc(), column).limit(10))
        return [{"name": name, key: n} for name, n in found]

    return {
        "photos": len(rows),
        "size_bytes": sum(r.size_bytes for r in rows),
        "by_format": dict(sorted(Counter(r.format for r in rows).items())),
        "by_camera": [{"camera": c, "photos": n} for c, n in cameras.most_common()],
        "by_month": dict(sorted(months.items())),
        "undated": sum(1 for r in rows if r.taken_at is None),
        "with_gps": sum(1 for r in rows if r.latitude is not None),
        "ratings": {str(stars): n for stars, n in sorted(Counter(r.rating for r in rows if r.rating is not None).items())},
        "albums": db.scalar(select(func.count(Album.id))) or 0,
        "top_tags": top(PhotoTag.name, "photos"),
        "top_people": top(PersonLabel.name, "photos"),
    }


def _camera(make: str | None, model: str | None) -> str:
    # Many makers repeat their name in the model ("Canon" + "Canon EOS R6"); say it once.
    if make and model and model.lower().startswith(make.lower()):
        return model
    return " ".join(filter(None, (make, model)))


@tools.capability("library_rescan", idempotent=True, example={"folder": "imports"})
def library_rescan(ctx: CallContext, args: inputs.Rescan) -> dict[str, Any]:
    """Rescan the library folder: import new images, refresh changed ones, report missing ones."""
    base = resolve(args.folder)
    with os_errors(args.folder or "/"):
        if not base.is_dir():
            raise InvalidRequest(f"{args.folder} is not a folder; give a folder of the library, or leave it out")
        found = _images(base)
    known = {p.path: p for p in ctx.db.scalars(select(Photo).where(*folder_condition(args.folder)).options(*PHOTO_LOAD))}
    imported: list[dict[str, Any]] = []
    updated: list[int] = []
    failed: list[dict[str, str]] = []
    unchanged = 0
    for walked in progress.counted(found, "images scanned"):
        deadline.check()  # outside the per-file refusal: a rescan past its limit stops, rolled back
        rel = display(walked)
        photo = known.pop(rel, None)
        try:
            real = resolve(rel)  # a file link leading out of the library is refused here
            if photo is None:
                new = register(ctx.db, real, rel)
                imported.append({"id": new.id, "path": new.path})
            elif refresh(photo, real):
                updated.append(photo.id)
            else:
                unchanged += 1
        except DomainError as exc:  # one damaged file is reported; the rest are still scanned
            failed.append({"path": rel, "error": str(exc)})
    missing = sorted((p.id, p.path) for p in known.values())
    if args.remove_missing:
        for photo in known.values():
            ctx.db.delete(photo)
    ctx.db.flush()
    return {
        "imported": imported,
        "updated_photo_ids": updated,
        "unchanged": unchanged,
        "missing": [{"id": i, "path": p} for i, p in missing],
        "missing_removed": args.remove_missing and bool(missing),
        "failed": failed,
    }


def _images(base: Path) -> list[Path]:
    """Image files under `base`, skipping hidden names (the thumbnail cache among them); links
    are not followed into other folders."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        deadline.check()
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(folder) / f for f in sorted(files) if not f.startswith(".") and is_image_name(Path(f)))
    return found


@tools.capability("thumbnail_purge", destructive=True, idempotent=True, example={"scope": "all"})
def thumbnail_purge(ctx: CallContext, args: inputs.ThumbnailPurge) -> dict[str, Any]:
    """Delete cached thumbnails, only those of no current photo by default."""
    folder = resolve(THUMBNAILS)
    current = {sha[:16] for sha in ctx.db.scalars(select(Photo.sha256))}
    deleted = freed = kept = 0
    with os_errors(THUMBNAILS):
        entries = sorted(folder.iterdir()) if folder.is_dir() else []
        for entry in entries:
            if not entry.is_file() or entry.is_symlink():
                continue
            if args.scope == "orphans" and entry.name.split("-", 1)[0] in current:
                kept += 1
                continue
            freed += entry.stat().st_size
            entry.unlink()
            deleted += 1
    return {"deleted": deleted, "freed_bytes": freed, "kept": kept}

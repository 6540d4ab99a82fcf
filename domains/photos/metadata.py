"""A photo's EXIF: read it, set fields, strip fields, dump it raw. Changes are written into
the file itself: a JPEG's EXIF segment is swapped without re-encoding, a PNG is re-saved
losslessly; the row is refreshed from the file afterwards."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image
from PIL.PngImagePlugin import PngInfo

from facade.kit import CallContext, InvalidRequest, Toolset

from domains.photos import exif as exif_fields
from domains.photos import inputs
from domains.photos.images import load_bytes, opened
from domains.photos.library import PHOTO, refresh, render
from domains.photos.sandbox import existing_file, write_file
from domains.photos.tables import Photo

tools = Toolset()

EDITABLE = ("taken_at", "camera_make", "camera_model", "latitude", "longitude", "description", "artist")


def _rewrite(image: Image.Image, data: bytes, given: str, exif: Image.Exif) -> bytes:
    """The file's bytes with `exif` in place of its EXIF."""
    if image.format == "JPEG":
        try:
            return exif_fields.splice_jpeg(data, exif)
        except ValueError as exc:
            raise InvalidRequest(f"cannot write the EXIF of {given}: {exc}") from None
    if image.format == "PNG":
        text = PngInfo()
        for key, value in getattr(image, "text", {}).items():
            text.add_text(key, value)
        buffer = io.BytesIO()
        extra = {"icc_profile": image.info["icc_profile"]} if "icc_profile" in image.info else {}
        image.save(buffer, "PNG", exif=exif, pnginfo=text, **extra)
        return buffer.getvalue()
    raise InvalidRequest(
        f"{given} is {image.format}; EXIF is written into JPEG and PNG files only, convert it first with photos.photo_convert"
    )


def _change_exif(photo: Photo, change: Any) -> tuple[Path, Any]:
    """Open the photo's file, apply `change(exif)` and write the file back; returns the real
    path and what `change` returned."""
    real = existing_file(photo.path)
    data = load_bytes(real, photo.path)
    with opened(data, photo.path) as image:
        exif = image.getexif()
        outcome = change(exif)
        new = _rewrite(image, data, photo.path, exif)
    write_file(real, photo.path, new, overwrite=True)
    refresh(photo, real)
    return real, outcome


@tools.capability("exif_read", read_only=True, example={"photo_id": 6})
def exif_read(ctx: CallContext, args: inputs.PhotoRef) -> dict[str, Any]:
    """Read a photo's EXIF: date, camera, lens, exposure, GPS, orientation, description."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    real = existing_file(photo.path)
    with opened(load_bytes(real, photo.path), photo.path) as image:
        fields = exif_fields.readable(image.getexif())
    return {"photo_id": photo.id, "path": photo.path, "exif": fields}


@tools.capability(
    "exif_update",
    idempotent=True,
    example={
        "photo_id": 4,
        "latitude": 51.4787,
        "longitude": -0.2956,
        "description": "Tulips in the walled garden",
        "artist": "Priya Natarajan",
    },
)
def exif_update(ctx: CallContext, args: inputs.ExifUpdate) -> dict[str, Any]:
    """Set EXIF fields (date, camera, GPS, description, artist) in a photo's file."""
    changes = {f: getattr(args, f) for f in EDITABLE if getattr(args, f) is not None}
    if not changes:
        raise InvalidRequest(f"nothing to change; give at least one of: {', '.join(EDITABLE)}")
    if ("latitude" in changes) != ("longitude" in changes):
        raise InvalidRequest("give latitude and longitude together; a position needs both")
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    _change_exif(photo, lambda exif: exif_fields.set_fields(exif, changes))
    ctx.db.flush()
    return {"photo": render(photo), "changed": sorted(changes)}


@tools.capability("exif_strip", destructive=True, idempotent=True, example={"photo_id": 6, "fields": ["gps"]})
def exif_strip(ctx: CallContext, args: inputs.ExifStrip) -> dict[str, Any]:
    """Remove EXIF fields (GPS, camera, date, description, artist, or all) from a photo's file."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    _, removed = _change_exif(photo, lambda exif: exif_fields.strip(exif, args.fields))
    ctx.db.flush()
    return {"photo": render(photo), "removed": removed}


@tools.capability("exif_dump", read_only=True, example={"photo_id": 1})
def exif_dump(ctx: CallContext, args: inputs.PhotoRef) -> dict[str, Any]:
    """Dump every EXIF tag of a photo's file, raw, with the file's format details."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    real = existing_file(photo.path)
    with opened(load_bytes(real, photo.path), photo.path) as image:
        tags = exif_fields.raw(image.getexif())
        details = {
            "format": image.format,
            "mode": image.mode,
            "size": list(image.size),
            "info_keys": sorted(k for k in image.info if k != "exif"),
            "dpi": [float(v) for v in image.info["dpi"]] if "dpi" in image.info else None,
        }
    return {"photo_id": photo.id, "path": photo.path, "file": details, "exif": tags}

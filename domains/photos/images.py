"""Image files: opening them safely, reading what the library records about them, and writing
new ones (edits, conversions, thumbnails) whole or not at all."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image, ImageOps

from facade.kit import InvalidRequest

from domains.photos import exif as exif_fields
from domains.photos.errors import decoding
from domains.photos.sandbox import os_errors, read_bytes
from domains.photos.settings import settings

SUFFIX_FORMATS: dict[str, str] = {
    ".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".webp": "WEBP", ".gif": "GIF",
    ".tif": "TIFF", ".tiff": "TIFF", ".bmp": "BMP",
}
WRITE_SUFFIX: dict[str, str] = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp"}
JPEG_QUALITY = 90  # visually lossless for photos at about half the bytes of quality 100


@dataclass(frozen=True, slots=True)
class Facts:
    """What the library records about an image file."""

    format: str
    width: int
    height: int
    size_bytes: int
    sha256: str
    modified: datetime
    exif: exif_fields.Summary


def is_image_name(path: Path) -> bool:
    return path.suffix.lower() in SUFFIX_FORMATS


def need_image_name(real: Path, given: str) -> None:
    if not is_image_name(real):
        known = ", ".join(sorted(SUFFIX_FORMATS))
        raise InvalidRequest(f"{given} is not an image file name; the library takes files ending in {known}")


def load_bytes(real: Path, given: str) -> bytes:
    return read_bytes(real, given, limit=settings().max_file_bytes, purpose="for an image")


@contextmanager
def opened(data: bytes, given: str) -> Iterator[Image.Image]:
    """The image in `data`, its size checked before any pixel is decoded."""
    with decoding(given):
        image = Image.open(io.BytesIO(data))
        pixels, limit = image.width * image.height, settings().max_pixels
        if pixels > limit:
            raise InvalidRequest(f"{given} is {image.width}x{image.height}, over the {limit:,}-pixel limit of the library")
        with image:
            yield image


def facts(real: Path, given: str) -> Facts:
    data = load_bytes(real, given)
    with os_errors(given):
        modified = datetime.fromtimestamp(real.stat().st_mtime, UTC)
    with opened(data, given) as image:
        exif = image.getexif()
        summary = exif_fields.summary(exif)
        fmt = (image.format or "unknown").lower()
        width, height = image.size
        # Recorded as the picture is shown: orientations 5-8 turn it a quarter.
        if exif.get(exif_fields.TAG.Orientation) in (5, 6, 7, 8):
            width, height = height, width
    return Facts(fmt, width, height, len(data), hashlib.sha256(data).hexdigest(), modified, summary)


def upright(image: Image.Image) -> Image.Image:
    """The pixels as a viewer shows them: the EXIF orientation applied, and dropped from the
    EXIF so that no later viewer turns the picture a second time."""
    turned = ImageOps.exif_transpose(image)
    return turned if turned is not None else image


def encode(image: Image.Image, fmt: str, *, exif: Image.Exif | None = None, quality: int = JPEG_QUALITY) -> bytes:
    """`image` as a file of format JPEG, PNG or WEBP; transparency is flattened onto white for
    JPEG, which has none."""
    if fmt == "JPEG" and image.mode not in ("RGB", "L", "CMYK"):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        image = flat
    elif fmt in ("PNG", "WEBP") and image.mode not in ("RGB", "RGBA", "L", "LA", "P"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    buffer = io.BytesIO()
    options: dict[str, object] = {}
    if exif is not None and len(exif):
        options["exif"] = exif
    if fmt in ("JPEG", "WEBP"):
        options["quality"] = quality
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def free_name(folder: Path, stem: str, suffix: str) -> Path:
    """`folder/stem+suffix`, or with -2, -3… appended when taken: an edit never lands on a file."""
    candidate = folder / f"{stem}{suffix}"
    counter = 1
    while candidate.exists():
        counter += 1
        candidate = folder / f"{stem}-{counter}{suffix}"
    return candidate

"""Input models of the photos capabilities. A path is relative to the library folder; that rule
lives in TOOLS.md, never in a field description repeated on every tool."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from facade.kit import Id, Input, Page, TagName


def _person(value: str) -> str:
    name = " ".join(value.split())
    if not name:
        raise ValueError("a person's name cannot be blank")
    return name


# No max_length on paths: the filesystem refuses an over-long name itself, with a clear error.
FilePath = Annotated[str, Field(min_length=1)]
PersonName = Annotated[str, Field(min_length=1, max_length=120), AfterValidator(_person)]
PhotoIds = Annotated[list[Id], Field(min_length=1, max_length=500)]
Rating = Annotated[int, Field(ge=0, le=5)]
Format = Literal["jpeg", "png", "webp", "gif", "tiff", "bmp"]
Dest = Annotated[str | None, Field(description="Default: beside the original, with a suffix.")]


class PhotoRef(Input):
    photo_id: Id


# Catalogue


class PhotoFilter(Page):
    album_id: Id | None = None
    format: Format | None = None
    folder: str | None = Field(default=None, description="Only photos under this folder.")


class PhotoSearch(Page):
    taken_from: date | None = None
    taken_to: date | None = Field(default=None, description="Inclusive.")
    tag: TagName | None = None
    album_id: Id | None = None
    camera: str | None = Field(default=None, max_length=100, description="Part of the make or model, any case.")
    person: PersonName | None = None
    min_rating: Rating | None = None
    has_gps: bool | None = None
    text: str | None = Field(default=None, max_length=200, description="Part of the caption or path.")


class PhotoAdd(Input):
    path: FilePath
    caption: str = Field(default="", max_length=2000)
    tags: list[TagName] = Field(default_factory=list, max_length=20)


class PhotoUpdate(Input):
    photo_id: Id
    caption: str | None = Field(default=None, max_length=2000)
    rating: Rating | None = Field(default=None, description="0-5 stars; null clears it.")


class PhotoDelete(Input):
    photo_id: Id
    delete_file: bool = Field(default=False, description="Also delete the image file; by default only the record goes.")


class ThumbnailGet(Input):
    photo_id: Id
    size: Literal[128, 256, 512] = 256
    include_data: bool = Field(default=False, description="Also return the JPEG image.")


# EXIF


class ExifUpdate(Input):
    photo_id: Id
    taken_at: datetime | None = Field(default=None, description="With a UTC offset; without one it is taken as UTC.")
    camera_make: str | None = Field(default=None, min_length=1, max_length=100)
    camera_model: str | None = Field(default=None, min_length=1, max_length=100)
    latitude: float | None = Field(default=None, ge=-90, le=90)
    longitude: float | None = Field(default=None, ge=-180, le=180)
    description: str | None = Field(default=None, max_length=2000)
    artist: str | None = Field(default=None, max_length=200)


class ExifStrip(Input):
    photo_id: Id
    fields: list[Literal["gps", "camera", "date", "description", "artist"]] | None = Field(
        default=None, min_length=1, description="Default: everything but the orientation."
    )


# Albums


class AlbumCreate(Input):
    name: str = Field(min_length=1, max_length=120)
    description: str = Field(default="", max_length=2000)


class AlbumUpdate(Input):
    album_id: Id
    name: str | None = Field(default=None, min_length=1, max_length=120)
    description: str | None = Field(default=None, max_length=2000)


class AlbumFilter(Page):
    photo_id: Id | None = Field(default=None, description="Only albums holding this photo.")


class AlbumPhotos(Input):
    album_id: Id
    photo_ids: PhotoIds


class AlbumBulkMove(Input):
    album_id: Id
    photo_ids: PhotoIds
    from_album_id: Id | None = Field(default=None, description="Album to take them out of; default: every other album.")


class AlbumExport(Input):
    album_id: Id
    dest: FilePath | None = Field(default=None, description="A .zip path; default: exports/<album name>.zip.")
    overwrite: bool = False


# Tags and people


class TagAdd(Input):
    photo_id: Id
    tags: list[TagName] = Field(min_length=1, max_length=20)


class TagRemove(Input):
    photo_id: Id
    tag: TagName


class NameFilter(Page):
    prefix: str | None = Field(default=None, max_length=120)


class TagBulkAdd(Input):
    photo_ids: PhotoIds
    tag: TagName


class Box(Input):
    left: int = Field(ge=0)
    top: int = Field(ge=0)
    width: int = Field(ge=1)
    height: int = Field(ge=1)


class PersonAdd(Input):
    photo_id: Id
    name: PersonName
    box: Box | None = Field(default=None, description="Where the person is, in pixels.")


class PersonRemove(Input):
    photo_id: Id
    name: PersonName


# Edits: each writes a new file unless replace_original=true.


class Rotate(Input):
    photo_id: Id
    degrees: Literal[90, 180, 270] = Field(description="Clockwise.")
    dest: Dest = None
    replace_original: bool = False


class Resize(Input):
    photo_id: Id
    width: int | None = Field(default=None, ge=1, le=20_000)
    height: int | None = Field(default=None, ge=1, le=20_000)
    dest: Dest = None
    replace_original: bool = False


class Crop(Input):
    photo_id: Id
    left: int = Field(ge=0)
    top: int = Field(ge=0)
    width: int = Field(ge=1)
    height: int = Field(ge=1)
    dest: Dest = None
    replace_original: bool = False


class Convert(Input):
    photo_id: Id
    format: Literal["jpeg", "png", "webp"]
    quality: int = Field(default=90, ge=1, le=100, description="For JPEG and WebP.")
    dest: Dest = None


# Maintenance


class Everything(Input):
    pass


class Duplicates(Page):
    pass


class Rescan(Input):
    folder: str = ""
    remove_missing: bool = Field(default=False, description="Delete the records of files that are gone.")


class ThumbnailPurge(Input):
    scope: Literal["orphans", "all"] = Field(default="orphans", description="orphans: thumbnails of no current photo.")

"""The demo library: real JPEG and PNG images drawn with Pillow, with EXIF (date, camera, some
with GPS), their rows, albums, tags and people.

The images are drawn once, by `scripts/demo_files.py`, into `demo-files.zip` beside this module:
drawing them at the first start cost 0.1-0.35 s of CPU (issue 17); the seed unpacks them.
tests/test_demo_archives.py keeps the archive made from today's sources (`SOURCES`).

Written only into an empty photos table, always in the same order, so that ids are 1..N on a
fresh database (the capability examples rely on them). An image already in the folder is kept
as it is and imported as found: the seed never overwrites what a user put there."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import Session

from facade.kit import MADE_FROM, pack_files, source_digest, unpack_files

from domains.photos import art
from domains.photos import exif as exif_fields
from domains.photos.images import encode
from domains.photos.library import add_to_album, register
from domains.photos.sandbox import root, write_file
from domains.photos.tables import Album, PersonLabel, Photo

ARCHIVE = Path(__file__).with_name("demo-files.zip")
# What draws the images: an archive made from other sources than these is out of date.
SOURCES = ("domains.photos.seed", "domains.photos.art", "domains.photos.exif", "domains.photos.images", "facade.kit.demo_files")
# Fixed timestamps rather than "now", so that two seeded libraries hold the same rows.
T0 = datetime(2026, 10, 20, 9, 0, tzinfo=UTC)
LISBON = timezone(timedelta(hours=1))
BERLIN = timezone(timedelta(hours=2))


@dataclass(frozen=True)
class Camera:
    make: str
    model: str
    lens: str | None = None


CANON = Camera("Canon", "Canon EOS R6", "RF24-105mm F4 L IS USM")
SONY = Camera("SONY", "ILCE-7M4", "FE 90mm F2.8 Macro G OSS")
PIXEL = Camera("Google", "Pixel 8")


@dataclass(frozen=True)
class SeedPhoto:
    path: str
    draw: Callable[[], Image.Image] | None  # None: a byte-for-byte copy of `copy_of`
    taken: datetime | None
    camera: Camera | None = None
    gps: tuple[float, float] | None = None
    caption: str = ""
    tags: tuple[str, ...] = ()
    rating: int | None = None
    people: tuple[tuple[str, tuple[int, int, int, int] | None], ...] = ()
    registered: bool = True
    copy_of: str | None = None
    orientation: int = 1


def _exif(item: SeedPhoto) -> Image.Exif:
    exif = Image.Exif()
    changes: dict[str, object] = {}
    if item.taken is not None:
        changes["taken_at"] = item.taken
    if item.camera is not None:
        changes.update(camera_make=item.camera.make, camera_model=item.camera.model)
    if item.gps is not None:
        changes.update(latitude=item.gps[0], longitude=item.gps[1])
    exif_fields.set_fields(exif, changes)
    if item.taken is not None:
        exif[exif_fields.TAG.DateTime] = item.taken.strftime(exif_fields.EXIF_DATE)
    if item.camera is not None:
        sub = exif.get_ifd(exif_fields.IFD.Exif)
        sub[exif_fields.TAG.ExposureTime] = 1 / 250
        sub[exif_fields.TAG.FNumber] = 4.0
        sub[exif_fields.TAG.ISOSpeedRatings] = 200
        if item.camera.lens:
            sub[exif_fields.TAG.LensModel] = item.camera.lens
    exif[exif_fields.TAG.Orientation] = item.orientation
    return exif


def _bytes(item: SeedPhoto) -> bytes:
    assert item.draw is not None
    picture = item.draw()
    if item.orientation == 6:  # stored as the sensor saw it; the tag turns it upright
        picture = picture.transpose(Image.Transpose.ROTATE_90)
    fmt = "PNG" if item.path.endswith(".png") else "JPEG"
    return encode(picture, fmt, exif=_exif(item))


PHOTOS: list[SeedPhoto] = [
    SeedPhoto("2026/lisbon/IMG_2041.jpg", art.sunset, datetime(2026, 5, 14, 19, 42, 10, tzinfo=LISBON), CANON,
              (38.708912, -9.147203), "Sunset over the Tagus", ("sunset", "lisbon"), 4, (("João", (300, 180, 80, 140)),)),
    SeedPhoto("2026/lisbon/IMG_2042.jpg", art.harbour, datetime(2026, 5, 15, 10, 3, 55, tzinfo=LISBON), CANON,
              (38.707236, -9.135618), "Boats at Cais do Sodré", ("lisbon",), 3),
    SeedPhoto("2026/lisbon/IMG_2042-copy.jpg", None, datetime(2026, 5, 15, 10, 3, 55, tzinfo=LISBON), CANON,
              copy_of="2026/lisbon/IMG_2042.jpg"),
    SeedPhoto("2026/garden/DSC00311.jpg", lambda: art.garden(0), datetime(2026, 6, 2, 9, 15, tzinfo=UTC), SONY,
              caption="Tulips by the shed", tags=("garden",), rating=4),
    SeedPhoto("2026/garden/DSC00312.jpg", lambda: art.garden(1), datetime(2026, 6, 2, 9, 16, 30, tzinfo=UTC), SONY,
              tags=("garden", "blurry"), rating=1),
    SeedPhoto("2026/family/PXL_20260720_101500.jpg", art.picnic, datetime(2026, 7, 20, 10, 15, tzinfo=BERLIN), PIXEL,
              (52.516275, 13.377704), "Picnic in the Tiergarten", ("family", "summer"), 5,
              (("Maria", (110, 290, 90, 200)), ("Tomás", None)), orientation=6),
    SeedPhoto("screenshots/dashboard-2026-09.png", art.dashboard, datetime(2026, 9, 3, 14, 20, tzinfo=UTC),
              caption="Sales dashboard for the September review", tags=("work",)),
    SeedPhoto("scratch/blurry-test.jpg", art.blurry, datetime(2026, 5, 15, 10, 4, 30, tzinfo=LISBON), CANON),
    # Left unregistered: photo_add's example imports IMG_3001, library_rescan's the imports folder.
    SeedPhoto("inbox/IMG_3001.jpg", art.river, datetime(2026, 10, 4, 18, 55, tzinfo=LISBON), CANON,
              (41.140600, -8.611000), registered=False),
    SeedPhoto("inbox/IMG_3002.jpg", art.street, datetime(2026, 10, 11, 12, 30, tzinfo=BERLIN), PIXEL, registered=False),
    SeedPhoto("imports/IMG_3003.jpg", lambda: art.garden(2), datetime(2026, 10, 18, 8, 40, tzinfo=BERLIN), SONY,
              registered=False),
]

# name, description, photos (1-based seed order)
ALBUMS: list[tuple[str, str, list[int]]] = [
    ("Lisbon, May 2026", "Four days in Lisbon for the product offsite.", [1, 2]),
    ("Garden", "The back garden through the seasons.", [4, 5]),
    ("Family", "", [6]),
    ("Old screenshots", "Screens kept for reference; safe to delete.", [7]),
]


def archive() -> bytes:
    """What `demo-files.zip` holds: every demo image drawn, path → bytes (a copy once, as its
    original: the seed copies the file it finds in the folder, which may be a user's)."""
    drawn = {item.path: _bytes(item) for item in PHOTOS if item.copy_of is None}
    return pack_files({**drawn, MADE_FROM: source_digest(SOURCES).encode()})


def seed(session: Session) -> None:
    """Write the demo images that are missing and import them, unless the photos table already
    has rows."""
    if session.scalar(select(Photo.id).limit(1)) is not None:
        return
    base = root()
    drawn = unpack_files(ARCHIVE)
    photos: list[Photo] = []
    for number, item in enumerate(PHOTOS):
        real = base / item.path
        if not real.exists():
            data = (base / item.copy_of).read_bytes() if item.copy_of else drawn[item.path]
            write_file(real, item.path, data, overwrite=False)
            if item.taken is not None:
                stamp = item.taken.timestamp()
                os.utime(real, (stamp, stamp))
        if not item.registered:
            continue
        photo = register(session, real, item.path, caption=item.caption, tags=item.tags, now=T0 + timedelta(minutes=number))
        photo.rating = item.rating
        for name, box in item.people:
            left, top, width, height = box if box else (None, None, None, None)
            photo.people.append(PersonLabel(name=name, box_left=left, box_top=top, box_width=width, box_height=height))
        photos.append(photo)
    session.flush()
    for number, (name, description, members) in enumerate(ALBUMS):
        stamp = T0 + timedelta(hours=1, minutes=number)
        album = Album(name=name, description=description, created_at=stamp, updated_at=stamp, memberships=[])
        for member in members:
            add_to_album(album, photos[member - 1])
        session.add(album)
        session.flush()

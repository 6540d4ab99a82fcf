"""The photos domain: a photo library in a sandboxed folder, with albums, tags, people labels
and EXIF, and real image work done with Pillow.

The handlers live in modules by concept and register on `domain` when imported; the import
order below is the registration order, and so the order in which every example runs against a
freshly seeded database and folder (every one succeeds; none needs a backend).

Seeded ids: photos 1-8 (1-2 Lisbon by a Canon, with GPS; 3 a byte-for-byte copy of 2;
4-5 a Sony in the garden, no GPS; 6 a Pixel in Berlin, with GPS; 7 a PNG screenshot; 8
scratch/blurry-test.jpg, which the delete example removes), albums 1-4 (1 Lisbon, 2 Garden,
3 Family, 4 Old screenshots, which the delete example removes). Two images are left
unregistered: inbox/IMG_3001.jpg (photo_add makes it photo 9) and inbox/IMG_3002.jpg
(library_rescan finds it). album_create makes album 5; the edits make photos 10-13.
Ids are never reused.
"""

from __future__ import annotations

from pathlib import Path

from facade.kit import Domain

from domains.photos.seed import seed

domain = Domain(
    "photos",
    description="A photo library: photos with EXIF, albums, tags, people, thumbnails and edits.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# The package's __init__ imports this module first, so these modules always find `domain` bound.
from domains.photos import catalogue, metadata, albums, labels, editing, maintenance  # noqa: E402,F401,I001

__all__ = ["domain"]

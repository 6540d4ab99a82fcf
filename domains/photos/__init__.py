"""A photo library in a sandboxed folder: import, search, albums, tags, people, EXIF and edits,
with real image work done with Pillow.

Every example succeeds on a freshly seeded database and folder whichever examples ran before it
(none needs a backend). Seeded ids: photos 1-8 (1-2 Lisbon by a Canon, with GPS; 3 a
byte-for-byte copy of 2; 4-5 a Sony in the garden, no GPS; 6 a Pixel in Berlin, with GPS; 7 a
PNG screenshot; 8 scratch/blurry-test.jpg, which only the delete example touches), albums 1-4
(1 Lisbon, 2 Garden, 3 Family, 4 Old screenshots, which only the delete example touches).
Three images are left unregistered: inbox/IMG_3001.jpg (photo_add's example), inbox/IMG_3002.jpg
and imports/IMG_3003.jpg (library_rescan's example scans imports/). Edits write new photos.
Ids are never reused.
"""

from pathlib import Path

from domains.photos import albums, catalogue, editing, labels, maintenance, metadata
from domains.photos.seed import seed
from domains.photos.settings import PhotosSettings
from facade.kit import Domain

domain = Domain(
    "photos",
    description="A photo library: photos with EXIF, albums, tags, people, thumbnails and edits.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(catalogue.tools, metadata.tools, albums.tools, labels.tools, editing.tools, maintenance.tools),
    settings=PhotosSettings,
)

__all__ = ["domain"]

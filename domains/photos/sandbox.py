"""The photos domain's sandbox: the library folder, the one folder it touches. A caller's path
becomes a real path in it only through `resolve`."""

from __future__ import annotations

from facade.kit import Sandbox

from domains.photos.settings import settings

SANDBOX = Sandbox(
    place="the photo library",
    setting="FACADE_PHOTOS_ROOT",
    locate=lambda: settings().root,
    example="2026/trip/IMG_0001.jpg",
    find="photos.library_rescan shows what the library folder holds",
    free="free space (photos.thumbnail_purge)",
)

# The operations this domain's modules call, by their short names.
root = SANDBOX.root
resolve = SANDBOX.resolve
display = SANDBOX.display
existing_file = SANDBOX.existing_file
remove_file = SANDBOX.remove_file
folder_prefix = SANDBOX.folder_prefix
os_errors = SANDBOX.os_errors
read_bytes = SANDBOX.read_bytes
write_file = SANDBOX.write_file

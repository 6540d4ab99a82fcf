"""A photo library in a sandboxed folder: import, search, albums, tags, people, EXIF and edits."""

from domains.photos.capabilities import domain

__all__ = ["domain"]

"""A sandboxed folder of files: read, write, search, hash, archive."""

from domains.files.capabilities import domain

__all__ = ["domain"]

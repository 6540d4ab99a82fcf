"""Office documents in a sandboxed folder: read, create, convert, search and tag them."""

from domains.documents.capabilities import domain

__all__ = ["domain"]

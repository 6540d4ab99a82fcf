"""The files domain: a sandboxed folder of files, and its capabilities.

The handlers live in modules by concept and register on `domain` when imported. The import
order below is the registration order, and so the order in which the examples run against a
freshly seeded root: reads first, then the changes, and the moves and deletes last.
"""

from __future__ import annotations

from facade.kit import Domain

from domains.files.seed import seed

domain = Domain("files", description="A sandboxed folder of files.", default_mode="full", seed=seed)

# The package's __init__ imports this module first, so these modules always find `domain` bound.
from domains.files import reading, writing, inspection, text, hashing, archives, bulk  # noqa: E402,F401,I001

__all__ = ["domain"]

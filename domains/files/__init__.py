"""A sandboxed folder of files: read, write, search, hash, archive.

Every example succeeds on a freshly seeded root whichever examples ran before it: each one
that moves, deletes, renames or overwrites acts on files of the seed that no other example
reads (seed.py names them), and the creating ones write paths the seed leaves free.
"""

from domains.files import archives, bulk, hashing, inspection, reading, text, writing
from domains.files.seed import seed
from domains.files.settings import FilesSettings
from facade.kit import Domain

domain = Domain(
    "files",
    description="A sandboxed folder of files.",
    default_mode="full",
    seed=seed,
    toolsets=(
        reading.tools,
        writing.tools,
        inspection.tools,
        text.tools,
        hashing.tools,
        archives.tools,
        bulk.tools,
    ),
    settings=FilesSettings,
)

__all__ = ["domain"]

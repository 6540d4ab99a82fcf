"""The backups domain's sandbox: the one folder it touches. Sources, archives and restore targets
are all paths inside it and all go through `resolve`."""

from __future__ import annotations

from pathlib import Path

from domains.backups.settings import settings
from facade.kit import Sandbox

SOURCES = "sources"  # the data to back up
ARCHIVES = "archives"  # the archives the domain writes; nothing else may
RESTORES = "restores"  # the default home of restored files

SANDBOX = Sandbox(
    place="the backups sandbox",
    setting="FACADE_BACKUPS_ROOT",
    locate=lambda: settings().root,
    example="sources/documents",
    find="check the path (sources live under 'sources/')",
    free="prune old runs with backups.job_prune",
    areas=(SOURCES, ARCHIVES),
)

# The operations this domain's modules call, by their short names.
root = SANDBOX.root
resolve = SANDBOX.resolve
display = SANDBOX.display
os_errors = SANDBOX.os_errors


def in_archives(real: Path) -> bool:
    """Whether a resolved path is the archives area or inside it (only the domain writes there)."""
    return SANDBOX.contains(real, ARCHIVES)

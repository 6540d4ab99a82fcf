"""The sandbox: the one place a caller's path becomes a real path, and the one place that
refuses anything outside the root. Sources, archives and restore targets all go through
`resolve`."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from domains.backups.settings import settings
from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable

SOURCES = "sources"
ARCHIVES = "archives"
RESTORES = "restores"


def root() -> Path:
    """The real, resolved root, created (with its areas) on first use."""
    base = settings().root.expanduser()
    try:
        for area in (SOURCES, ARCHIVES):
            (base / area).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        # Where the root lives is the operator's business; the model only learns it is broken.
        raise Unavailable(
            f"the backups root cannot be created ({exc.strerror}); an operator must fix FACADE_BACKUPS_ROOT"
        ) from None
    return Path(os.path.realpath(base))


def resolve(path: str) -> Path:
    """The real path of `path`, given relative to the root (an absolute path is accepted only
    when it lies inside the root). Refuses, with Forbidden, a NUL byte, any `..` component and a
    path whose links lead outside the root."""
    if "\x00" in path:
        raise Forbidden(f"{path!r} contains a NUL byte; remove it from the path")
    base = root()
    given = PurePosixPath(path)
    if ".." in given.parts:
        raise Forbidden(f"{path!r} uses '..'; give the path from the sandbox root instead, e.g. 'sources/documents'")
    if given.is_absolute():
        if not inside(Path(os.path.realpath(path)), base):
            raise Forbidden(
                f"{path!r} is outside the backups sandbox; give a path relative to its root, e.g. 'sources/documents'"
            )
        return Path(os.path.realpath(path))
    real = Path(os.path.realpath(base.joinpath(*given.parts)))
    if not inside(real, base):
        raise Forbidden(f"{path!r} leads outside the backups sandbox through a link; use a path without such links")
    return real


def inside(real: Path, base: Path) -> bool:
    return real == base or real.is_relative_to(base)


def in_archives(real: Path) -> bool:
    """Whether a resolved path is the archives area or inside it (only the domain writes there)."""
    return inside(real, root() / ARCHIVES)


def display(real: Path) -> str:
    """`real` as callers write it: relative to the root, "/" for the root itself."""
    base = root()
    return "/" if real == base else real.relative_to(base).as_posix()


def translate(exc: OSError, what: str) -> DomainError:
    """The domain error for an OSError raised while working on `what` (as the caller wrote it)."""
    if isinstance(exc, FileNotFoundError):
        return NotFound(f"{what} does not exist; check the path (sources live under 'sources/')")
    if isinstance(exc, FileExistsError):
        return Conflict(f"{what} already exists; pass overwrite=true or choose another target")
    if isinstance(exc, NotADirectoryError | IsADirectoryError):
        return InvalidRequest(f"{what} mixes up a file and a folder; check the path")
    if isinstance(exc, PermissionError):
        return Forbidden(f"the server may not access {what}; an operator must fix its permissions")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Unavailable(f"the disk is full while writing {what}; prune old runs with backups.job_prune and retry")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidRequest(f"{what} is too long a name for the filesystem; use a shorter one")
    return Unavailable(f"the filesystem refused {what} ({exc.strerror or exc}); retry later")


@contextmanager
def os_errors(what: str) -> Iterator[None]:
    """Raise the domain error for any OSError raised inside the block."""
    try:
        yield
    except OSError as exc:
        raise translate(exc, what) from None

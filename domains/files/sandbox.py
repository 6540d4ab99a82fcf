"""The sandbox: the one place a caller's path becomes a real path, and the one place that
refuses anything outside the root. Every capability goes through `resolve`."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from facade.kit import Forbidden, Unavailable

from domains.files.errors import translate
from domains.files.settings import settings


def root() -> Path:
    """The real, resolved root folder, created on first use so a fresh install just works."""
    base = settings().root.expanduser()
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        # The root's location is the operator's business; the model only learns it is broken.
        raise Unavailable(
            f"the files root cannot be created ({exc.strerror}); an operator must fix FACADE_FILES_ROOT"
        ) from None
    return Path(os.path.realpath(base))


def resolve(path: str, *, follow: bool = True) -> Path:
    """The real path of `path`, a path relative to the root ("/" and "" mean the root itself).

    Refuses, with Forbidden, a NUL byte, any `..` component, and a path whose links lead outside
    the root. With `follow=False` the last component is not resolved (the result is the link
    itself, for delete and move), but the path is still refused if its target escapes: an
    outside target is refused the same way whatever the operation.
    """
    if "\x00" in path:
        raise Forbidden(f"{path!r} contains a NUL byte; remove it from the path")
    # A leading "/" means the root: callers never see the real location of the sandbox. The
    # slashes go before parsing, since POSIX keeps a leading "//" as an anchor of its own.
    parts = list(PurePosixPath(path.lstrip("/")).parts)
    if ".." in parts:
        raise Forbidden(
            f"{path!r} uses '..' to climb out of a folder; give the path from the root "
            "instead, e.g. 'notes/todo.txt'"
        )
    base = root()
    candidate = base.joinpath(*parts)
    real = Path(os.path.realpath(candidate))
    if not _inside(real, base):
        raise Forbidden(
            f"{path!r} leads outside the sandbox through a link; only paths whose links stay "
            "inside the root can be used"
        )
    _probe(real, path)
    if follow or not parts:
        return real
    # The link itself: its folder resolved (and so checked), its own name kept.
    parent = Path(os.path.realpath(candidate.parent))
    if not _inside(parent, base):
        raise Forbidden(f"{path!r} leads outside the sandbox through a link in its folder")
    return parent / candidate.name


def _probe(real: Path, given: str) -> None:
    """Surface, as a domain error, what would otherwise burst out of a later `exists()`: a name
    too long for the filesystem, a folder the server may not search."""
    try:
        os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        pass  # a path that does not exist (yet) is each capability's own business
    except OSError as exc:
        raise translate(exc, given) from None


def display(real: Path, base: Path | None = None) -> str:
    """`real` as callers write it: relative to the root, with "/" for the root itself.
    Walks pass `base` (the real root) so a thousand entries do not re-read the settings."""
    base = base or root()
    if real == base:
        return "/"
    return real.relative_to(base).as_posix()


def is_root(real: Path) -> bool:
    return real == root()


def inside_root(real: Path) -> bool:
    """Whether an already-real path (e.g. a link's target found on a walk) stays in the root."""
    return _inside(Path(os.path.realpath(real)), root())


def _inside(real: Path, base: Path) -> bool:
    return real == base or real.is_relative_to(base)

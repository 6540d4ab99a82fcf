"""The sandbox: the one place a caller's path becomes a real path under the photo library,
and the one place that refuses anything outside it."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from facade.kit import Forbidden, NotFound, Unavailable

from domains.photos.errors import os_errors
from domains.photos.settings import settings


def root() -> Path:
    """The real, resolved root folder, created on first use so a fresh install just works."""
    base = settings().root.expanduser()
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unavailable(
            f"the photo library cannot be created ({exc.strerror}); an operator must fix FACADE_PHOTOS_ROOT"
        ) from None
    return Path(os.path.realpath(base))


def resolve(path: str) -> Path:
    """The real path of `path`, relative to the root ("" is the root itself); an absolute path
    is accepted only when it lies inside the root.

    Refuses, with Forbidden, a NUL byte, any `..` component, an absolute path elsewhere, and a
    path whose symbolic links lead outside the root.
    """
    if "\x00" in path:
        raise Forbidden(f"{path!r} contains a NUL byte; remove it from the path")
    given = PurePosixPath(path)
    if ".." in given.parts:
        raise Forbidden(f"{path!r} uses '..'; give the path from the photo library, e.g. '2026/trip/IMG_0001.jpg'")
    base = root()
    real = Path(os.path.realpath(given if given.is_absolute() else base.joinpath(*given.parts)))
    if not (real == base or real.is_relative_to(base)):
        if given.is_absolute():
            raise Forbidden(f"{path!r} is outside the photo library; give a path relative to it, e.g. '2026/trip/IMG_0001.jpg'")
        raise Forbidden(f"{path!r} leads outside the photo library through a symbolic link; pick another path")
    return real


def display(real: Path) -> str:
    """`real` as callers write it: relative to the root, with '/' separators."""
    return real.relative_to(root()).as_posix()


def existing_file(path: str) -> Path:
    """The real path of a file that must exist."""
    real = resolve(path)
    with os_errors(path):
        is_file, is_dir = real.is_file(), real.is_dir()
    if not is_file:
        what = "is a folder" if is_dir else "does not exist"
        raise NotFound(f"{path} {what}; photos.library_rescan shows what the library folder holds")
    return real

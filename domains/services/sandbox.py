"""The sandbox: the one place a service's working folder or log file becomes a real path, and
the one place that refuses anything outside the root."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from domains.services.settings import settings
from facade.kit import Forbidden, Unavailable


def root() -> Path:
    """The real, resolved root folder, created on first use so that a fresh install just works."""
    base = settings().root.expanduser()
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unavailable(
            f"the services root cannot be created ({exc.strerror}); an operator must fix FACADE_SERVICES_ROOT"
        ) from None
    return Path(os.path.realpath(base))


def resolve(path: str) -> Path:
    """The real path of `path`, given relative to the root ("" is the root itself); an absolute
    path is accepted only inside the root. Refuses (Forbidden) a NUL byte, any `..`, an absolute
    path elsewhere, and a path whose links lead outside the root."""
    if "\x00" in path:
        raise Forbidden(f"{path!r} contains a NUL byte; remove it from the path")
    given = PurePosixPath(path)
    if ".." in given.parts:
        raise Forbidden(f"{path!r} uses '..'; give a path inside the services root, e.g. 'logs/web.log'")
    base = root()
    if given.is_absolute():
        real = Path(os.path.realpath(given))
        if not _inside(real, base):
            raise Forbidden(f"{path!r} is outside the services root; give a path relative to it, e.g. 'logs/web.log'")
        return real
    real = Path(os.path.realpath(base.joinpath(*given.parts)))
    if not _inside(real, base):
        raise Forbidden(f"{path!r} leads outside the services root through a link; pick a path without it")
    return real


def relative(real: Path) -> str:
    """A real path inside the root as stored and shown: relative, "" for the root itself."""
    return "" if real == root() else real.relative_to(root()).as_posix()


def _inside(real: Path, base: Path) -> bool:
    return real == base or real.is_relative_to(base)

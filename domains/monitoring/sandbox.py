"""The sandbox of file_age checks: the one place a check's file path becomes a real path, and
the one place that refuses anything outside the root."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from domains.monitoring.settings import settings
from facade.kit import Forbidden, Unavailable


def root() -> Path:
    """The real, resolved root, created on first use."""
    base = settings().root.expanduser()
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unavailable(
            f"the monitoring root cannot be created ({exc.strerror}); an operator must fix FACADE_MONITORING_ROOT"
        ) from None
    return Path(os.path.realpath(base))


def resolve(path: str) -> Path:
    """The real path of `path`, relative to the root (an absolute path only if it lies inside
    it). Refuses, with Forbidden, a NUL byte, any `..` and links that lead outside the root."""
    if "\x00" in path:
        raise Forbidden(f"{path!r} contains a NUL byte; remove it from the path")
    given = PurePosixPath(path)
    if ".." in given.parts:
        raise Forbidden(f"{path!r} uses '..'; give the path from the monitoring root, e.g. 'heartbeats/nightly.ok'")
    base = root()
    real = Path(os.path.realpath(path if given.is_absolute() else base.joinpath(*given.parts)))
    if not (real == base or real.is_relative_to(base)):
        raise Forbidden(
            f"{path!r} is outside the monitoring sandbox (or links out of it); file_age checks watch files "
            "inside it, e.g. 'heartbeats/nightly.ok'"
        )
    return real


def display(real: Path) -> str:
    base = root()
    return "/" if real == base else real.relative_to(base).as_posix()

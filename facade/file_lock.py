"""One process at a time, across processes: a lock on a file beside what they share."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def file_lock(path: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the block; another process, or
    another open of it in this one, waits. Released when the block ends or the process dies."""
    with open(path, "a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)  # released when the file closes
        yield

"""Turning the OS's errors into domain errors that say what to change.

Foreseeable bad input (a missing file, a name taken, a file where a folder was meant) must
reach the model as a clear refusal, never as a bare OSError."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable


def translate(exc: OSError, path: str) -> DomainError:
    """The domain error for `exc`, raised while working on `path` (as the caller wrote it)."""
    if isinstance(exc, FileNotFoundError):
        return NotFound(f"{path} does not exist; list its folder with files.list")
    if isinstance(exc, FileExistsError):
        return Conflict(f"{path} already exists; pass overwrite=true to replace it, or pick another name")
    if isinstance(exc, IsADirectoryError):
        return InvalidRequest(f"{path} is a folder, not a file; give a file path")
    if isinstance(exc, NotADirectoryError):
        return InvalidRequest(f"a part of {path} is a file, not a folder; check the path with files.stat")
    if isinstance(exc, PermissionError):
        return Forbidden(f"the server is not allowed to access {path}; pick another file")
    if exc.errno == errno.ENOTEMPTY:
        return Conflict(f"{path} is a folder that is not empty; pass recursive=true to delete it with its content")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidRequest(f"{path} is too long a name for the filesystem; use a shorter name")
    if exc.errno == errno.ELOOP:
        return InvalidRequest(f"{path} goes through a loop of links; use a path without links")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Unavailable(f"the disk is full while writing {path}; free space with files.delete and retry")
    if exc.errno == errno.EROFS:
        return Forbidden(f"{path} is on a read-only filesystem; it cannot be changed")
    return Unavailable(f"the filesystem refused {path} ({exc.strerror or exc}); retry later or pick another path")


@contextmanager
def os_errors(path: str) -> Iterator[None]:
    """Raise the domain error for any OSError raised inside the block."""
    try:
        yield
    except OSError as exc:
        raise translate(exc, path) from None

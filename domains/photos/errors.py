"""Turning the OS's and Pillow's exceptions into domain errors that say what to change.

A damaged, truncated or mislabelled image is foreseeable bad input: it must reach the model as
a refusal naming the file, never as a decoder's stack trace."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable


def translate(exc: OSError, path: str) -> DomainError:
    """The domain error for `exc`, raised while working on `path` (as the caller wrote it)."""
    if isinstance(exc, FileNotFoundError):
        return NotFound(f"{path} does not exist; photos.library_rescan shows what the library folder holds")
    if isinstance(exc, FileExistsError):
        return Conflict(f"{path} already exists; pick another name or pass overwrite=true")
    if isinstance(exc, IsADirectoryError):
        return InvalidRequest(f"{path} is a folder; give the path of an image file")
    if isinstance(exc, NotADirectoryError):
        return InvalidRequest(f"a part of {path} is a file, not a folder; fix the path")
    if isinstance(exc, PermissionError):
        return Forbidden(f"the server may not access {path}; pick another file")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidRequest(f"{path} is too long a name for the filesystem; use a shorter one")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Unavailable(f"the disk is full while writing {path}; free space (photos.thumbnail_purge) and retry")
    return Unavailable(f"the filesystem refused {path} ({exc.strerror or exc}); retry later or pick another path")


@contextmanager
def os_errors(path: str) -> Iterator[None]:
    """Raise the domain error for any OSError raised inside the block."""
    try:
        yield
    except OSError as exc:
        raise translate(exc, path) from None


@contextmanager
def decoding(path: str) -> Iterator[None]:
    """Refuse an image Pillow cannot read. Decoders raise a wide range of exceptions on damaged
    input (UnidentifiedImageError and truncated-file errors are errno-less OSErrors, others are
    ValueError, SyntaxError, struct.error…), so anything but a domain error or an OS error with
    an errno is reported as an unreadable image."""
    try:
        yield
    except DomainError:
        raise
    except OSError as exc:
        if exc.errno is None:
            raise _unreadable(path, exc) from None
        raise translate(exc, path) from None
    except Exception as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: str, exc: Exception) -> InvalidRequest:
    detail = (str(exc).splitlines() or [""])[0][:160] or type(exc).__name__
    return InvalidRequest(f"{path} is not an image this library can read ({detail}); give a JPEG, PNG, WebP, GIF, TIFF or BMP file")

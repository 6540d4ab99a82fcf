"""Turning the OS's and the parsers' exceptions into domain errors that say what to change.

A damaged or mislabelled office file is foreseeable bad input: it must reach the model as a
refusal naming the file, never as a parser's stack trace."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable


def translate(exc: OSError, path: str) -> DomainError:
    """The domain error for `exc`, raised while working on `path` (as the caller wrote it)."""
    if isinstance(exc, FileNotFoundError):
        return NotFound(f"{path} does not exist; list the documents with documents.document_list")
    if isinstance(exc, FileExistsError):
        return Conflict(f"{path} already exists; pass overwrite=true to replace it, or pick another name")
    if isinstance(exc, IsADirectoryError):
        return InvalidRequest(f"{path} is a folder; give the path of a file")
    if isinstance(exc, NotADirectoryError):
        return InvalidRequest(f"a part of {path} is a file, not a folder; fix the path")
    if isinstance(exc, PermissionError):
        return Forbidden(f"the server may not access {path}; pick another file")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidRequest(f"{path} is too long a name for the filesystem; use a shorter one")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Unavailable(f"the disk is full while writing {path}; delete documents and retry")
    return Unavailable(f"the filesystem refused {path} ({exc.strerror or exc}); retry later or pick another path")


@contextmanager
def os_errors(path: str) -> Iterator[None]:
    """Raise the domain error for any OSError raised inside the block."""
    try:
        yield
    except OSError as exc:
        raise translate(exc, path) from None


@contextmanager
def parsing(path: str, kind: str) -> Iterator[None]:
    """Refuse a file its parser cannot read. The parsers (zip, XML, PDF) raise a wide and
    undocumented range of exceptions on damaged input, so anything but a domain error or an
    OS error is reported as an unreadable file."""
    try:
        yield
    except DomainError:
        raise
    except OSError as exc:
        if exc.errno is None:  # zipfile and friends raise errno-less OSErrors on bad content
            raise _unreadable(path, kind, exc) from None
        raise translate(exc, path) from None
    except Exception as exc:
        raise _unreadable(path, kind, exc) from None


def _unreadable(path: str, kind: str, exc: Exception) -> InvalidRequest:
    detail = (str(exc).splitlines() or [""])[0][:160] or type(exc).__name__
    return InvalidRequest(f"{path} is not a readable .{kind} file ({detail}); check it is not damaged or pick another file")

"""Sandboxes: the one folder a domain may touch, and the one place a caller's path becomes a
real path inside it.

A domain declares its sandbox once, as data (what its messages call the folder, the setting an
operator fixes, an example path, where to look for what exists); `resolve` then refuses, with
Forbidden, everything that would reach outside: a NUL byte, any `..` part, an absolute path
elsewhere, and a symbolic link that leads out. What the filesystem refuses later (a missing
file, a full disk) becomes a domain error through `os_error`, never a bare OSError.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from facade.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable


def within(real: Path, base: Path) -> bool:
    """Whether the resolved path `real` is `base` itself or lies under it."""
    return real.is_relative_to(base)


def os_error(exc: OSError, path: str, *, find: str, free: str) -> DomainError:
    """The domain error for `exc`, raised while working on `path` (as the caller wrote it).

    `find` tells the caller how to see what exists ("list its folder with files.list"), `free`
    how to make room ("prune old runs with backups.job_prune"): the two hints that differ
    between domains. Foreseeable bad input must reach the model as a refusal that says what to
    change; only the unforeseeable asks for a retry.
    """
    if isinstance(exc, FileNotFoundError):
        return NotFound(f"{path} does not exist; {find}")
    if isinstance(exc, FileExistsError):
        return Conflict(f"{path} already exists; pass overwrite=true to replace it, or pick another name")
    if isinstance(exc, IsADirectoryError):
        return InvalidRequest(f"{path} is a folder, not a file; give the path of a file")
    if isinstance(exc, NotADirectoryError):
        return InvalidRequest(f"a part of {path} is a file, not a folder; fix the path")
    if isinstance(exc, PermissionError):
        return Forbidden(f"the server may not access {path}; pick another path, or an operator must fix its permissions")
    if exc.errno == errno.ENOTEMPTY:
        return Conflict(f"{path} is a folder that is not empty; empty it first or pick another path")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidRequest(f"{path} is too long a name for the filesystem; use a shorter one")
    if exc.errno == errno.ELOOP:
        return InvalidRequest(f"{path} goes through a loop of links; use a path without links")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Unavailable(f"the disk is full while writing {path}; {free} and retry")
    if exc.errno == errno.EROFS:
        return Forbidden(f"{path} is on a read-only filesystem; it cannot be changed")
    return Unavailable(f"the filesystem refused {path} ({exc.strerror or exc}); retry later or pick another path")


@dataclass(frozen=True, slots=True)
class Sandbox:
    """The folder one domain may touch.

    Attributes:
        place: what messages call the folder, e.g. "the documents root", "the photo library".
        setting: the environment variable an operator fixes when the folder cannot be made.
        locate: the configured folder, read per call so that an operator (or a test) can move
            it without a restart.
        example: a well-formed path inside it, shown when a caller's path is refused.
        find: how a caller sees what exists, for "does not exist" errors.
        free: how a caller makes room, for "disk is full" errors.
        areas: subfolders created with the folder (e.g. the backups' `sources` and `archives`).
        slash_is_root: read a leading "/" as the folder itself (the files domain shows callers
            a tree of their own, never where it lives); otherwise an absolute path is accepted
            only when it lies inside.
    """

    place: str
    setting: str
    locate: Callable[[], Path]
    example: str
    find: str = "check the path"
    free: str = "free some space"
    areas: tuple[str, ...] = ()
    slash_is_root: bool = False
    # Each configured folder as last made and resolved: its real path and (device, inode). Making
    # it and resolving it part by part on every call was ~20 µs, twice per files.stat (2026-12,
    # issue 17); checking that both names still lead to that folder is two stat calls.
    _found: dict[Path, tuple[Path, tuple[int, int]]] = field(default_factory=dict, compare=False, repr=False)

    def root(self) -> Path:
        """The real, resolved folder, created (with its areas) on first use so a fresh install
        just works, and again whenever it is gone."""
        base = self.locate().expanduser()
        found = self._found.get(base)
        if found is not None and self._still(base, *found):
            return found[0]
        try:
            for folder in (base, *(base / area for area in self.areas)):
                folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            # Where the folder lives is the operator's business; the model only learns it is broken.
            raise Unavailable(
                f"{self.place} cannot be created ({exc.strerror}); an operator must fix {self.setting}"
            ) from None
        real = Path(os.path.realpath(base))
        try:
            info = os.stat(real)
        except OSError:  # gone again already: the next call makes it again
            return real
        self._found[base] = (real, (info.st_dev, info.st_ino))
        return real

    def _still(self, base: Path, real: Path, identity: tuple[int, int]) -> bool:
        """Whether the configured name (from the current folder, if relative) and the real path
        both still lead to the folder found before, and its areas are there: otherwise it is
        made and resolved again. A folder moved elsewhere, or replaced, fails the check."""
        try:
            given, kept = os.stat(base), os.stat(real)
        except OSError:
            return False
        if (given.st_dev, given.st_ino) != identity or (kept.st_dev, kept.st_ino) != identity:
            return False
        return stat.S_ISDIR(kept.st_mode) and all(os.path.isdir(real / area) for area in self.areas)

    def resolve(self, path: str, *, follow: bool = True) -> Path:
        """The real path of `path`, given relative to the folder ("" is the folder itself).

        With `follow=False` the last part is not resolved (the result is a link itself, for
        delete and move), but its folder still is, so a link in it cannot lead out.
        """
        if "\x00" in path:
            raise Forbidden(f"{path!r} contains a NUL byte; remove it from the path")
        # The slashes go before parsing, since POSIX keeps a leading "//" as an anchor of its own.
        given = PurePosixPath(path.lstrip("/") if self.slash_is_root else path)
        if ".." in given.parts:
            raise Forbidden(f"{path!r} uses '..'; give the path from {self.place} instead, e.g. {self.example!r}")
        base = self.root()
        candidate = Path(given) if given.is_absolute() else base.joinpath(*given.parts)
        real = Path(os.path.realpath(candidate))
        if not within(real, base):
            if given.is_absolute():
                raise Forbidden(f"{path!r} is outside {self.place}; give a path relative to it, e.g. {self.example!r}")
            raise self._escaped(path)
        self._probe(real, path)
        if follow or not given.parts:
            return real
        # The link itself: its folder resolved (and so checked), its own name kept.
        parent = Path(os.path.realpath(candidate.parent))
        if not within(parent, base):
            raise self._escaped(path)
        return parent / candidate.name

    def contains(self, real: Path, area: str = "") -> bool:
        """Whether a path (e.g. a link's target found on a walk) resolves inside the folder, or
        inside one of its areas."""
        return within(Path(os.path.realpath(real)), self.root() / area)

    def relative(self, real: Path, base: Path | None = None) -> str:
        """A real path inside the folder as stored: relative, "" for the folder itself. Walks
        pass `base` (the real folder) so that a thousand entries do not re-read the settings."""
        base = base or self.root()
        return "" if real == base else real.relative_to(base).as_posix()

    def display(self, real: Path, base: Path | None = None) -> str:
        """A real path inside the folder as callers write it: relative, "/" for the folder itself."""
        return self.relative(real, base) or "/"

    def folder_prefix(self, folder: Path) -> str:
        """The stored-path prefix of everything under a real folder inside the sandbox: "" for
        the folder itself, else the relative path and a "/"."""
        relative = self.relative(folder)
        return relative + "/" if relative else ""

    def existing_file(self, path: str) -> Path:
        """The real path of a file that must exist."""
        real = self.resolve(path)
        with self.os_errors(path):
            is_file, is_dir = real.is_file(), real.is_dir()
        if not is_file:
            what = "is a folder" if is_dir else "does not exist"
            raise NotFound(f"{path} {what}; {self.find}")
        return real

    def remove_file(self, path: str) -> bool:
        """Delete the file at `path` if there is one; whether one was deleted."""
        real = self.resolve(path)
        with self.os_errors(path):
            if not real.is_file():
                return False
            real.unlink()
        return True

    def read_bytes(self, real: Path, given: str, *, limit: int, purpose: str) -> bytes:
        """The whole file at `real` (a resolved path), refused when it is over `limit` bytes:
        parsers and decoders hold all of it in memory. `purpose` ends the refusal, e.g. "for an
        image"."""
        with self.os_errors(given):
            size = real.stat().st_size
            if size > limit:
                raise InvalidRequest(f"{given} is {size:,} bytes, over the {limit:,}-byte limit {purpose}")
            return real.read_bytes()

    def write_file(self, real: Path, given: str, data: bytes, *, overwrite: bool) -> None:
        """Write `data` at `real` (a resolved path) whole or not at all: a temporary file renamed
        into place, so that nobody ever reads half a file. Missing folders are created; an
        existing file is replaced only with overwrite=true."""
        with self.os_errors(given):
            if real.is_dir():
                raise InvalidRequest(f"{given} is a folder; give a file path")
            if real.exists() and not overwrite:
                raise Conflict(f"{given} already exists; pass overwrite=true to replace it, or pick another name")
            real.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=real.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, real)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise

    def translate(self, exc: OSError, path: str) -> DomainError:
        """The domain error for an OSError raised while working on `path`, with this sandbox's hints."""
        return os_error(exc, path, find=self.find, free=self.free)

    @contextmanager
    def os_errors(self, path: str) -> Iterator[None]:
        """Raise the domain error for any OSError raised inside the block."""
        try:
            yield
        except OSError as exc:
            raise self.translate(exc, path) from None

    @contextmanager
    def parsing(self, path: str, unreadable: Callable[[str], DomainError]) -> Iterator[None]:
        """Refuse a file its parser cannot read. Parsers and decoders raise a wide, undocumented
        range of exceptions on damaged input (zipfile and Pillow even raise errno-less OSErrors),
        so anything but a domain error or a real OS error becomes `unreadable(detail)`."""
        try:
            yield
        except DomainError:
            raise
        except OSError as exc:
            if exc.errno is None:
                raise unreadable(_detail(exc)) from None
            raise self.translate(exc, path) from None
        except Exception as exc:
            raise unreadable(_detail(exc)) from None

    def _probe(self, real: Path, given: str) -> None:
        """Surface, as a domain error, what would otherwise burst out of a later `exists()`: a
        name too long for the filesystem, a folder the server may not search."""
        try:
            os.lstat(real)
        except (FileNotFoundError, NotADirectoryError):
            pass  # a path that does not exist (yet) is each capability's own business
        except OSError as exc:
            raise self.translate(exc, given) from None

    def _escaped(self, path: str) -> Forbidden:
        return Forbidden(
            f"{path!r} leads outside {self.place} through a link (a symbolic link that points out of it); "
            "pick a path whose links stay inside"
        )


def _detail(exc: Exception) -> str:
    """The first line of a parser's complaint, short enough for a message."""
    return (str(exc).splitlines() or [""])[0][:160] or type(exc).__name__

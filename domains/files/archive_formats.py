"""Zip and tar archives behind one small interface, so the capabilities never branch on the
format: read the members, open one, write a new archive."""

from __future__ import annotations

import stat as st
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Literal

from facade.kit import InvalidRequest

Format = Literal["zip", "tar.gz", "tar"]
SUFFIXES: tuple[tuple[str, Format], ...] = ((".zip", "zip"), (".tar.gz", "tar.gz"), (".tgz", "tar.gz"), (".tar", "tar"))


@dataclass(frozen=True, slots=True)
class Member:
    """One member of an archive; `kind` is "file", "folder", "link" or "other"."""

    name: str
    kind: str
    size: int
    compressed: int | None
    modified: str | None


def format_of(name: str, given: Format | None = None) -> Format:
    """The archive format: as given, else from the file name's extension."""
    if given is not None:
        return given
    lowered = name.lower()
    for suffix, fmt in SUFFIXES:
        if lowered.endswith(suffix):
            return fmt
    raise InvalidRequest(
        f"cannot tell the archive format of {name}; name it .zip, .tar.gz, .tgz or .tar, or pass format"
    )


def strip_suffix(name: str) -> str:
    lowered = name.lower()
    for suffix, _ in SUFFIXES:
        if lowered.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name + "-extracted"


class Archive:
    """An open archive to read: its members, and a stream for each file member."""

    def __init__(self, handle: zipfile.ZipFile | tarfile.TarFile) -> None:
        self._handle = handle

    def members(self) -> list[Member]:
        if isinstance(self._handle, zipfile.ZipFile):
            return [_zip_member(info) for info in self._handle.infolist()]
        return [_tar_member(info) for info in self._handle.getmembers()]

    @contextmanager
    def open(self, name: str) -> Iterator[IO[bytes]]:
        if isinstance(self._handle, zipfile.ZipFile):
            with self._handle.open(name) as stream:
                yield stream
            return
        stream = self._handle.extractfile(name)
        if stream is None:
            raise InvalidRequest(f"archive member {name!r} has no content to extract")
        with stream:
            yield stream


@contextmanager
def open_archive(path: Path, given: str) -> Iterator[Archive]:
    """Open a zip or tar archive (the content decides, not the name); a damaged or foreign
    file is refused with a clear message."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as handle:
                yield Archive(handle)
            return
        with tarfile.open(path, "r:*") as handle:
            yield Archive(handle)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zipfile.LargeZipFile) as exc:
        raise InvalidRequest(
            f"{given} is not a readable zip or tar archive ({exc}); check it with files.stat"
        ) from None


def write_archive(target: Path, fmt: Format, items: list[tuple[Path, str]]) -> None:
    """Write `items` ((real path, member name); folders end their name with "/") to `target`."""
    if fmt == "zip":
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as handle:
            for path, name in items:
                handle.write(path, name)
        return
    with tarfile.open(target, "w:gz" if fmt == "tar.gz" else "w") as handle:
        for path, name in items:
            handle.add(path, name.rstrip("/"), recursive=False)


def _zip_member(info: zipfile.ZipInfo) -> Member:
    mode = info.external_attr >> 16  # Unix mode bits, when a Unix zip tool wrote them
    if info.is_dir():
        kind = "folder"
    elif st.S_ISLNK(mode):
        kind = "link"
    else:
        kind = "file"
    try:
        modified: str | None = datetime(*info.date_time, tzinfo=UTC).isoformat(timespec="seconds")
    except ValueError:
        modified = None
    return Member(info.filename, kind, info.file_size, info.compress_size, modified)


def _tar_member(info: tarfile.TarInfo) -> Member:
    if info.isdir():
        kind = "folder"
    elif info.isfile():
        kind = "file"
    elif info.issym() or info.islnk():
        kind = "link"
    else:
        kind = "other"
    modified = datetime.fromtimestamp(info.mtime, UTC).isoformat(timespec="seconds") if info.mtime else None
    return Member(info.name, kind, info.size, None, modified)

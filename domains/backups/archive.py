"""Archives on disk: a run is one .tar.gz written here, with a JSON manifest beside it (path,
size and sha256 of every file). Writing is deterministic for the same files and times, so a
seeded archive is byte-for-byte the same on every machine."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tarfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, BinaryIO

from facade.kit import progress

CHUNK = 1_048_576
SUFFIX = ".tar.gz"
MANIFEST_SUFFIX = ".manifest.json"
# What a damaged or truncated archive raises while being read; reading a whole archive also
# counts any other OSError (an unreadable disk block) as damage.
DAMAGED: tuple[type[Exception], ...] = (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile)
UNREADABLE: tuple[type[Exception], ...] = (*DAMAGED, OSError)


@dataclass(frozen=True, slots=True)
class Entry:
    """A file to pack: its path inside the archive and how to read it."""

    path: str
    size: int
    modified: datetime
    mode: int
    open: Callable[[], BinaryIO]


@dataclass(frozen=True, slots=True)
class Packed:
    """A file as packed: what the manifest records."""

    path: str
    size: int
    sha256: str
    modified: datetime


class Unreadable(Exception):
    """The archive cannot be read as a tar.gz (damaged, truncated or not an archive)."""


class _Hashing:
    """A reader that hashes what tarfile copies out of it, so each file is read once."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.digest = hashlib.sha256()
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.digest.update(data)
        self.count += len(data)
        return data


def manifest_path(archive: Path) -> Path:
    """Where the manifest of `archive` lives: beside it, `<name>.manifest.json`."""
    return archive.with_name(archive.name.removesuffix(SUFFIX) + MANIFEST_SUFFIX)


def write(target: Path, entries: Iterable[Entry], stamp: datetime) -> list[Packed]:
    """Pack `entries` into `target` (through a temporary file, so that a failed write never
    leaves half an archive under the real name); return what was packed."""
    partial = target.with_name(f".{target.name}.part")
    packed: list[Packed] = []
    try:
        with open(partial, "wb") as raw:
            # A fixed gzip timestamp and owner-less members make the bytes depend on content only.
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=int(stamp.timestamp())) as gz:
                with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                    for entry in progress.counted(list(entries), "files packed"):
                        info = tarfile.TarInfo(entry.path)
                        info.size = entry.size
                        info.mtime = int(entry.modified.timestamp())
                        info.mode = entry.mode & 0o777
                        with entry.open() as handle:
                            reader = _Hashing(handle)
                            tar.addfile(info, reader)  # type: ignore[arg-type]
                        packed.append(Packed(entry.path, entry.size, reader.digest.hexdigest(), entry.modified))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return packed


def write_manifest(archive: Path, document: dict[str, Any]) -> None:
    path = manifest_path(archive)
    partial = path.with_name(f".{path.name}.part")
    try:
        partial.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Member:
    """A member found in an archive: a regular file with its measured size and checksum, or
    anything else (a folder, a link, a device) with its kind."""

    name: str
    kind: str
    size: int
    sha256: str | None


@contextmanager
def reading(archive: Path) -> Iterator[tarfile.TarFile]:
    """The archive opened for reading; Unreadable when it is not a readable tar.gz. Damage
    further in surfaces while members are read, where each reader turns it into Unreadable."""
    try:
        tar = tarfile.open(archive, mode="r:gz")
    except FileNotFoundError:
        raise
    except UNREADABLE as exc:
        raise Unreadable(str(exc) or type(exc).__name__) from None
    with tar:
        yield tar


def members(archive: Path) -> list[Member]:
    """Every member of the archive, regular files hashed; Unreadable if any part is damaged."""
    found: list[Member] = []
    with reading(archive) as tar:
        try:
            for info in tar:
                if not info.isreg():
                    found.append(Member(info.name, kind_of(info), info.size, None))
                    continue
                digest = hashlib.sha256()
                size = 0
                handle = tar.extractfile(info)
                assert handle is not None  # a regular member always has content
                while chunk := handle.read(CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                found.append(Member(info.name, "file", size, digest.hexdigest()))
        except UNREADABLE as exc:
            raise Unreadable(str(exc) or type(exc).__name__) from None
    return found


def kind_of(info: tarfile.TarInfo) -> str:
    if info.isreg():
        return "file"
    if info.isdir():
        return "folder"
    if info.issym():
        return "symlink"
    if info.islnk():
        return "hardlink"
    return "special"


def utc_of(timestamp: float) -> datetime:
    return datetime.fromtimestamp(int(timestamp), UTC)

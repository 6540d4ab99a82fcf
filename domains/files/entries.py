"""Entries of the sandbox as callers see them: walking folders, describing an entry as a
JSON-friendly dict, checking an entry is the kind a call needs, and paging lists."""

from __future__ import annotations

import os
import stat as st
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from facade.kit import InvalidRequest, NotFound, deadline

from domains.files.sandbox import display, inside_root

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry met on a walk; `path` is the entry itself (a link stays a link)."""

    path: Path
    rel: str
    kind: str  # "file" | "folder" | "link" | "other"
    depth: int
    stat: os.stat_result

    @property
    def name(self) -> str:
        return self.path.name


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def kind_of(mode: int) -> str:
    if st.S_ISLNK(mode):
        return "link"
    if st.S_ISDIR(mode):
        return "folder"
    if st.S_ISREG(mode):
        return "file"
    return "other"


def walk(start: Path, base: Path, max_depth: int | None = None) -> Iterator[Entry]:
    """Every entry under `start`, depth-first in name order. Links are reported but never
    followed, so a walk can neither leave the root nor loop; unreadable folders are skipped."""
    with os.scandir(start) as found:  # the start folder's own errors reach the caller
        children = sorted(found, key=lambda e: e.name)
    yield from _entries(children, base, 1, max_depth)


def _walk(folder: Path, base: Path, depth: int, max_depth: int | None) -> Iterator[Entry]:
    try:
        with os.scandir(folder) as found:
            children = sorted(found, key=lambda e: e.name)
    except OSError:
        return
    yield from _entries(children, base, depth, max_depth)


def _entries(children: list[os.DirEntry[str]], base: Path, depth: int, max_depth: int | None) -> Iterator[Entry]:
    for child in children:
        deadline.check()  # a folder of a million entries must not hold the call for ever
        try:
            info = child.stat(follow_symlinks=False)
        except OSError:
            continue
        path = Path(child.path)
        entry = Entry(path, display(path, base), kind_of(info.st_mode), depth, info)
        yield entry
        if entry.kind == "folder" and (max_depth is None or depth < max_depth):
            yield from _walk(path, base, depth + 1, max_depth)


def files_under(start: Path, base: Path) -> Iterator[Entry]:
    """The regular files under `start` (links excluded: see `walk`)."""
    return (entry for entry in walk(start, base) if entry.kind == "file")


def describe(entry: Entry) -> dict[str, Any]:
    """An entry as a result row; a link names its target only when the target is inside."""
    row: dict[str, Any] = {
        "path": entry.rel,
        "type": entry.kind,
        "size": entry.stat.st_size if entry.kind == "file" else None,
        "modified": iso(entry.stat.st_mtime),
    }
    if entry.kind == "link":
        target = Path(os.path.realpath(entry.path))
        row["target"] = display(target) if inside_root(target) and target.exists() else None
    return row


def need_file(real: Path, given: str) -> os.stat_result:
    """The stat of `real`, which must be an existing file."""
    if not real.exists():
        raise NotFound(f"{given} does not exist; list its folder with files.list")
    if real.is_dir():
        raise InvalidRequest(f"{given} is a folder, not a file; list it with files.list or give a file path")
    return real.stat()


def need_folder(real: Path, given: str) -> None:
    """`real` must be an existing folder."""
    if not real.exists():
        raise NotFound(f"{given} does not exist; list its parent with files.list")
    if not real.is_dir():
        raise InvalidRequest(f"{given} is a file, not a folder; read it with files.read or give a folder")


def page(items: Sequence[T], limit: int, offset: int) -> tuple[list[T], dict[str, Any]]:
    """One page of `items` and the paging fields every list result carries."""
    chunk = list(items[offset : offset + limit])
    end = offset + len(chunk)
    return chunk, {
        "total": len(items),
        "offset": offset,
        "limit": limit,
        "next_offset": end if end < len(items) else None,
    }

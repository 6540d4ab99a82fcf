"""Core reads: list a folder, read a file, stat an entry, search by name and content."""

from __future__ import annotations

import fnmatch
import mimetypes
import os
from pathlib import Path
from typing import Any

from facade.kit import CallContext, DomainError, Input, InvalidRequest, Toolset
from pydantic import Field

from domains.files.args import FilePath, FolderPath, Limit, Offset
from domains.files.content import ReadEncoding, decode, looks_binary, too_big
from domains.files.entries import Entry, describe, files_under, iso, kind_of, need_file, need_folder, page, walk
from domains.files.sandbox import display, os_errors, resolve, root
from domains.files.settings import settings

tools = Toolset()

SNIPPET_CHARS = 200


class ListArgs(Input):
    path: FolderPath = "/"
    limit: Limit = 100
    offset: Offset = 0


@tools.capability("list", tier="core", read_only=True, example={"path": "notes"})
def list_folder(ctx: CallContext, args: ListArgs) -> dict[str, Any]:
    """List the files and folders in a folder."""
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    with os_errors(args.path):
        entries = list(walk(real, base, max_depth=1))
    entries.sort(key=lambda e: (e.kind != "folder", e.name.lower()))
    chunk, paging = page(entries, args.limit, args.offset)
    return {"path": display(real, base), "entries": [describe(e) for e in chunk], **paging}


class ReadArgs(Input):
    path: FilePath
    offset: Offset = 0
    length: int | None = Field(default=None, ge=1, description="Bytes to read; default: to the end.")
    encoding: ReadEncoding = Field(default="auto", description="auto: text if the bytes are UTF-8, else base64.")


@tools.capability("read", tier="core", read_only=True, example={"path": "notes/todo.txt"})
def read(ctx: CallContext, args: ReadArgs) -> dict[str, Any]:
    """Read a file's content, or a part of it."""
    limit = settings().max_read_bytes
    real = resolve(args.path)
    with os_errors(args.path):
        size = need_file(real, args.path).st_size
        if args.offset > size:
            raise InvalidRequest(
                f"offset {args.offset:,} is past the end of {args.path} ({size:,} bytes); pass a smaller offset"
            )
        if args.length is not None and args.length > limit:
            raise InvalidRequest(
                f"length {args.length:,} is over the {limit:,}-byte read limit; read at most {limit:,} bytes per call"
            )
        if args.length is None and size - args.offset > limit:
            raise too_big(args.path, size, limit)
        with real.open("rb") as handle:
            handle.seek(args.offset)
            data = handle.read(args.length if args.length is not None else size - args.offset)
    content, used = decode(data, args.encoding)
    end = args.offset + len(data)
    return {
        "path": display(real),
        "size": size,
        "offset": args.offset,
        "length": len(data),
        "encoding": used,
        "content": content,
        "next_offset": end if end < size else None,
    }


class StatArgs(Input):
    path: FilePath


@tools.capability("stat", tier="core", read_only=True, example={"path": "reports/q1-sales.csv"})
def stat(ctx: CallContext, args: StatArgs) -> dict[str, Any]:
    """Show a file's or folder's type, size and dates."""
    real = resolve(args.path)
    with os_errors(args.path):
        info = real.stat()
        kind = kind_of(info.st_mode)
        result: dict[str, Any] = {
            "path": display(real),
            "type": kind,
            "size": info.st_size if kind == "file" else None,
            "modified": iso(info.st_mtime),
            "accessed": iso(info.st_atime),
        }
        if kind == "file":
            result["mime"] = mimetypes.guess_type(real.name)[0]
        elif kind == "folder":
            result["items"] = len(os.listdir(real))
    return result


class SearchArgs(Input):
    path: FolderPath = "/"
    name: str | None = Field(
        default=None, min_length=1, max_length=255,
        description="Glob on the name, e.g. '*.md'; a glob with '/' matches the whole path.",
    )
    contains: str | None = Field(default=None, min_length=1, max_length=1000, description="Text the file must contain.")
    case_sensitive: bool = False
    limit: Limit = 100
    offset: Offset = 0


@tools.capability(
    "search", tier="core", read_only=True, example={"path": "/", "name": "*.csv", "contains": "widget"}
)
def search(ctx: CallContext, args: SearchArgs) -> dict[str, Any]:
    """Find files under a folder by name glob, by content, or both."""
    if args.name is None and args.contains is None:
        raise InvalidRequest(
            "give name (a glob such as '*.md'), contains (text), or both; to see a folder use files.list"
        )
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    scan_limit = settings().max_scan_bytes
    found: list[dict[str, Any]] = []
    skipped = 0
    with os_errors(args.path):
        candidates = walk(real, base) if args.contains is None else files_under(real, base)
        for entry in candidates:
            if args.name is not None and not _name_matches(entry, args.name, args.case_sensitive):
                continue
            if args.contains is None:
                found.append(describe(entry))
                continue
            if entry.stat.st_size > scan_limit:
                skipped += 1
                continue
            hit = _first_hit(entry.path, args.contains, args.case_sensitive)
            if hit is not None:
                found.append({**describe(entry), "line": hit[0], "snippet": hit[1]})
    chunk, paging = page(found, args.limit, args.offset)
    result: dict[str, Any] = {"matches": chunk, **paging}
    if skipped:
        result["skipped_large_files"] = skipped
    return result


class ReadManyArgs(Input):
    paths: list[FilePath] = Field(min_length=1, max_length=50)
    encoding: ReadEncoding = "auto"


@tools.capability(
    "read_many", tier="full", read_only=True,
    example={"paths": ["notes/ideas.md", "reports/q2-sales.csv"]},
)
def read_many(ctx: CallContext, args: ReadManyArgs) -> dict[str, Any]:
    """Read several whole files at once, reporting each file's result."""
    budget = settings().max_read_bytes  # shared by all the files of the call
    items: list[dict[str, Any]] = []
    for given in args.paths:
        try:
            real = resolve(given)
            with os_errors(given):
                size = need_file(real, given).st_size
                if size > budget:
                    raise InvalidRequest(
                        f"{given} is {size:,} bytes, over the {budget:,} bytes left of this call's read "
                        "limit; read it alone with files.read (offset and length read a part)"
                    )
                data = real.read_bytes()
        except DomainError as exc:
            items.append({"path": given, "error": str(exc)})
            continue
        budget -= len(data)
        content, used = decode(data, args.encoding)
        items.append({"path": display(real), "size": len(data), "encoding": used, "content": content})
    return {"files": items, "failed": sum(1 for item in items if "error" in item)}


def _name_matches(entry: Entry, pattern: str, case_sensitive: bool) -> bool:
    target = entry.rel if "/" in pattern else entry.name
    if not case_sensitive:
        return fnmatch.fnmatchcase(target.casefold(), pattern.casefold())
    return fnmatch.fnmatchcase(target, pattern)


def _first_hit(path: Path, needle: str, case_sensitive: bool) -> tuple[int | None, str] | None:
    """(line number, line) of the first line holding `needle` in a text file; the line number
    is None for a needle that spans lines. None when the file does not hold it."""
    try:
        data = path.read_bytes()
    except OSError:
        return None  # a file that vanished or cannot be read mid-walk is simply not a match
    if looks_binary(data):
        return None
    text = data.decode("utf-8", errors="replace")
    fold = (lambda s: s) if case_sensitive else str.casefold
    wanted = fold(needle)
    if wanted not in fold(text):
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if wanted in fold(line):
            return number, line.strip()[:SNIPPET_CHARS]
    return None, ""

"""Full-tier changes: edit text in place, touch, and rename or delete many entries at once.
Bulk calls report a result per item instead of stopping at the first failure."""

from __future__ import annotations

import fnmatch
import os
from datetime import UTC, datetime
from typing import Any

from facade.kit import CallContext, Input, InvalidRequest, NotFound, Toolset, progress, substitute, user_pattern
from pydantic import Field

from domains.files.args import FilePath, FolderPath
from domains.files.content import check_write, read_text
from domains.files.entries import iso, need_file, need_folder, walk
from domains.files.sandbox import display, os_errors, resolve, root, translate
from domains.files.settings import settings

tools = Toolset()


class ReplaceTextArgs(Input):
    path: FilePath
    find: str = Field(min_length=1, max_length=10_000)
    replace: str = Field(max_length=100_000)
    regex: bool = Field(default=False, description="Treat find as an RE2 regular expression (replace may use \\1).")
    count: int = Field(default=0, ge=0, description="Most replacements to make; 0: all.")


@tools.capability(
    "replace_text", tier="full", destructive=True,
    example={"path": "notes/todo.txt", "find": "- [ ] Book the venue", "replace": "- [x] Book the venue"},
)
def replace_text(ctx: CallContext, args: ReplaceTextArgs) -> dict[str, Any]:
    """Replace text inside a file."""
    limits = settings()
    real = resolve(args.path)
    with os_errors(args.path):
        need_file(real, args.path)
        text = read_text(real, args.path, limits.max_read_bytes, strict=True)
    matcher = user_pattern(args.find, field="find", regex=args.regex)
    replacement = args.replace if args.regex else args.replace.replace("\\", "\\\\")
    new_text, made = substitute(matcher, replacement, text, count=args.count, field="replace")
    if made == 0:
        raise NotFound(f"{args.find!r} does not occur in {args.path}; read the file to copy the exact text")
    data = new_text.encode("utf-8")
    check_write(len(data), limits.max_write_bytes, "the new content")
    with os_errors(args.path):
        real.write_bytes(data)
    return {"path": display(real), "replacements": made, "size": len(data)}


class TouchArgs(Input):
    path: FilePath
    modified: datetime | None = Field(default=None, description="Time to set (UTC if no zone); default: now.")


@tools.capability("touch", tier="full", example={"path": "notes/ideas.md"})
def touch(ctx: CallContext, args: TouchArgs) -> dict[str, Any]:
    """Set a file's modified time, creating it empty if missing."""
    real = resolve(args.path)
    created = not real.exists()
    with os_errors(args.path):
        if created:
            real.parent.mkdir(parents=True, exist_ok=True)
            real.touch()
        if args.modified is None:
            os.utime(real)
        else:
            when = args.modified if args.modified.tzinfo else args.modified.replace(tzinfo=UTC)
            os.utime(real, (when.timestamp(), when.timestamp()))
        info = real.stat()
    return {"path": display(real), "modified": iso(info.st_mtime), "created": created}


class BulkRenameArgs(Input):
    path: FolderPath = "/"
    pattern: str = Field(
        min_length=1, max_length=1000, description="Regular expression searched in each name of the folder."
    )
    replacement: str = Field(max_length=1000, description="What each match becomes; \\1 or \\g<name> insert groups.")
    dry_run: bool = Field(default=False, description="Report the new names without renaming.")


@tools.capability(
    "bulk_rename", tier="full",
    example={"path": "photos", "pattern": "^IMG_(\\d+)", "replacement": "offsite-\\1"},
)
def bulk_rename(ctx: CallContext, args: BulkRenameArgs) -> dict[str, Any]:
    """Rename the entries of a folder whose names match a pattern."""
    matcher = user_pattern(args.pattern, field="pattern", literal_flag=None)
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    items: list[dict[str, Any]] = []
    taken: set[str] = set()  # new names claimed earlier in this call
    with os_errors(args.path):
        entries = [e for e in walk(real, base, max_depth=1) if matcher.search(e.name)]
    for entry in progress.counted(entries, "names"):
        new, _ = substitute(matcher, args.replacement, entry.name, field="replacement")
        if new == entry.name:
            continue
        target = entry.path.with_name(new) if _valid_name(new) else None
        item: dict[str, Any] = {"from": entry.rel, "to": display(target, base) if target else new}
        if target is None:
            reason = "the new name is empty, '.', '..' or has a '/' or NUL; change replacement"
            item.update(status="failed", reason=reason)
        elif new in taken or os.path.lexists(target):
            item.update(status="failed", reason=f"{new} already exists; change replacement so names stay unique")
        elif args.dry_run:
            item["status"] = "planned"
        else:
            try:
                os.rename(entry.path, target)
                item["status"] = "renamed"
            except OSError as exc:
                item.update(status="failed", reason=str(translate(exc, entry.rel)))
        if target is not None and item["status"] != "failed":
            taken.add(new)
        items.append(item)
    return _report(display(real, base), items, args.dry_run)


class BulkDeleteArgs(Input):
    path: FolderPath = "/"
    name: str = Field(min_length=1, max_length=255, description="Glob on the file name, e.g. '*.log'.")
    recursive: bool = Field(default=False, description="Also delete matching files in subfolders.")
    dry_run: bool = Field(default=False, description="Report what would be deleted without deleting.")


# Nothing restores the deleted files (no trash): the host asks its user first (approval 1).
@tools.capability(
    "bulk_delete", tier="full", approval=1, destructive=True, example={"path": "scratch", "name": "*.part"}
)
def bulk_delete(ctx: CallContext, args: BulkDeleteArgs) -> dict[str, Any]:
    """Delete the files under a folder whose names match a glob; folders are kept."""
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    with os_errors(args.path):
        entries = [
            e for e in walk(real, base, max_depth=None if args.recursive else 1)
            if e.kind != "folder" and fnmatch.fnmatchcase(e.name, args.name)
        ]
    items: list[dict[str, Any]] = []
    for entry in progress.counted(entries, "files"):
        item: dict[str, Any] = {"path": entry.rel}
        if args.dry_run:
            item["status"] = "planned"
        else:
            try:
                entry.path.unlink()  # a link is removed itself, never its target
                item["status"] = "deleted"
            except OSError as exc:
                item.update(status="failed", reason=str(translate(exc, entry.rel)))
        items.append(item)
    return _report(display(real, base), items, args.dry_run)


def _valid_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\x00" not in name


def _report(folder: str, items: list[dict[str, Any]], dry_run: bool) -> dict[str, Any]:
    done = sum(1 for item in items if item["status"] not in ("failed", "planned"))
    failed = sum(1 for item in items if item["status"] == "failed")
    return {"path": folder, "dry_run": dry_run, "done": done, "failed": failed, "items": items}

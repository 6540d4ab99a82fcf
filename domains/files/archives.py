"""Full-tier archives: create a zip or tar.gz, list one, and extract one inside the sandbox.

Extraction checks every member before writing anything: a name that is absolute or climbs
with `..`, or that resolves outside the destination, refuses the whole call."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from facade.kit import CallContext, Conflict, Forbidden, Input, InvalidRequest, NotFound, Toolset, progress
from pydantic import Field

from domains.files.archive_formats import Archive, Format, Member, format_of, open_archive, strip_suffix, write_archive
from domains.files.args import FilePath, Limit, Offset
from domains.files.entries import need_file, page, walk
from domains.files.sandbox import display, is_root, os_errors, resolve, root
from domains.files.settings import settings

tools = Toolset()

COPY_CHUNK = 1_048_576


class ArchiveCreateArgs(Input):
    sources: list[FilePath] = Field(min_length=1, max_length=100)
    destination: FilePath
    format: Format | None = Field(default=None, description="Default: from the destination's extension.")
    overwrite: bool = False


@tools.capability(
    "archive_create", tier="full", destructive=True,
    example={"sources": ["reports", "notes/todo.txt"], "destination": "archive/backup.zip"},
)
def archive_create(ctx: CallContext, args: ArchiveCreateArgs) -> dict[str, Any]:
    """Pack files and folders into a zip or tar.gz archive."""
    fmt = format_of(args.destination, args.format)
    target = resolve(args.destination)
    if target.is_dir():
        raise InvalidRequest(f"{args.destination} is a folder; give the archive's file name, e.g. backup.zip")
    if target.exists() and not args.overwrite:
        raise Conflict(f"{args.destination} already exists; pass overwrite=true to replace it")
    base = root()
    items: list[tuple[Path, str]] = []
    skipped: list[str] = []
    for given in args.sources:
        source = resolve(given)
        if not source.exists():
            raise NotFound(f"{given} does not exist; list its folder with files.list")
        prefix = "" if is_root(source) else source.name
        with os_errors(given):
            if source.is_file():
                items.append((source, prefix))
                continue
            if prefix:
                items.append((source, prefix + "/"))
            for entry in walk(source, base):
                if entry.path == target:
                    continue  # never pack the archive into itself
                name = entry.path.relative_to(source).as_posix()
                name = f"{prefix}/{name}" if prefix else name
                if entry.kind == "file":
                    items.append((entry.path, name))
                elif entry.kind == "folder":
                    items.append((entry.path, name + "/"))
                else:
                    skipped.append(entry.rel)  # links and special files could pull in outside content
    names = [name for _, name in items]
    clashes = sorted({name for name in names if names.count(name) > 1})
    if clashes:
        raise InvalidRequest(
            f"two sources would both be stored as {clashes[0]!r}; archive them separately or rename one"
        )
    partial = target.with_name(f".{target.name}.part")
    with os_errors(args.destination):
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_archive(partial, fmt, items)
            os.replace(partial, target)  # a failed write never leaves a half archive behind
        finally:
            partial.unlink(missing_ok=True)
        size = target.stat().st_size
    result: dict[str, Any] = {"path": display(target), "format": fmt, "members": len(items), "size": size}
    if skipped:
        result["skipped"] = skipped
    return result


class ArchiveListArgs(Input):
    path: FilePath
    limit: Limit = 200
    offset: Offset = 0


@tools.capability("archive_list", tier="full", read_only=True, example={"path": "archive/offsite-2025.zip"})
def archive_list(ctx: CallContext, args: ArchiveListArgs) -> dict[str, Any]:
    """List the members of a zip or tar archive."""
    real = resolve(args.path)
    with os_errors(args.path):
        need_file(real, args.path)
        with open_archive(real, args.path) as archive:
            members = archive.members()
    chunk, paging = page(members, args.limit, args.offset)
    return {
        "path": display(real),
        "members": [
            {"name": m.name, "type": m.kind, "size": m.size, "compressed_size": m.compressed, "modified": m.modified}
            for m in chunk
        ],
        "total_size": sum(m.size for m in members),
        **paging,
    }


class ArchiveExtractArgs(Input):
    path: FilePath
    destination: FilePath | None = Field(
        default=None, description="Default: a folder named after the archive, beside it."
    )
    members: list[str] | None = Field(
        default=None, min_length=1, max_length=1000, description="Only these members; default: all."
    )
    overwrite: bool = False


@tools.capability(
    "archive_extract", tier="full", destructive=True,
    example={"path": "archive/offsite-2025.zip", "destination": "restored"},
)
def archive_extract(ctx: CallContext, args: ArchiveExtractArgs) -> dict[str, Any]:
    """Unpack a zip or tar archive into a folder."""
    limits = settings()
    real = resolve(args.path)
    with os_errors(args.path):
        need_file(real, args.path)
    given_dest = args.destination or f"{display(real.parent)}/{strip_suffix(real.name)}"
    dest = resolve(given_dest)
    if dest.exists() and not dest.is_dir():
        raise Conflict(f"{given_dest} is a file; give a folder to extract into")
    with os_errors(args.path), open_archive(real, args.path) as archive:
        members = _selected(archive.members(), args.members, args.path)
        plan = [(m, _target(m, dest, given_dest)) for m in members if m.kind in ("file", "folder")]
        skipped = [m.name for m in members if m.kind not in ("file", "folder")]  # links may point anywhere
        _check_plan(plan, given_dest, args.overwrite, limits.max_extract_bytes, limits.max_extract_members)
        written = 0
        for member, target in progress.counted(plan, "members extracted"):
            if member.kind == "folder":
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written += _copy_member(archive, member, target, limits.max_extract_bytes - written)
    result: dict[str, Any] = {
        "path": display(real),
        "destination": display(dest),
        "files": sum(1 for m, _ in plan if m.kind == "file"),
        "folders": sum(1 for m, _ in plan if m.kind == "folder"),
        "bytes": written,
    }
    if skipped:
        result["skipped"] = skipped
    return result


def _selected(members: list[Member], wanted: list[str] | None, given: str) -> list[Member]:
    if wanted is None:
        return members
    known = {m.name for m in members}
    missing = [name for name in wanted if name not in known]
    if missing:
        raise NotFound(f"{given} has no member {missing[0]!r}; see the member names with files.archive_list")
    chosen = set(wanted)
    return [m for m in members if m.name in chosen]


def _target(member: Member, dest: Path, given_dest: str) -> Path:
    """Where `member` lands; refused (Forbidden) if it would land outside `dest`."""
    name = member.name
    parts = [p for p in re.split(r"[\\/]+", name) if p not in ("", ".")]
    reason = None
    if "\x00" in name:
        reason = "it contains a NUL byte"
    elif name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        reason = "it is an absolute path"
    elif ".." in parts:
        reason = "it climbs out with '..'"
    elif not parts and member.kind == "folder":
        return dest  # "." or "./": `tar -C dir .` stores the folder itself
    elif not parts:
        reason = "it has an empty name"
    if reason is None:
        target = resolve(f"{display(dest)}/{'/'.join(parts)}")  # the sandbox checks links on the way
        if target == dest or target.is_relative_to(dest):
            return target
        reason = "a link on its way leads elsewhere"
    raise Forbidden(
        f"archive member {name!r} would land outside {given_dest} ({reason}); nothing was extracted. "
        "Extract the other members by naming them in members"
    )


def _check_plan(
    plan: list[tuple[Member, Path]], given_dest: str, overwrite: bool, max_bytes: int, max_members: int
) -> None:
    """Refuse before writing anything: too much to write, or files in the way."""
    files = [(m, t) for m, t in plan if m.kind == "file"]
    if len(files) > max_members:
        raise InvalidRequest(
            f"the archive has {len(files):,} files, over the {max_members:,}-file extraction limit; "
            "extract fewer with members"
        )
    total = sum(m.size for m, _ in files)
    if total > max_bytes:
        raise InvalidRequest(
            f"the archive unpacks to {total:,} bytes, over the {max_bytes:,}-byte extraction limit; "
            "extract fewer with members"
        )
    blocked = [m for m, t in plan if t.exists() and t.is_dir() != (m.kind == "folder")]
    if blocked:
        other = "file" if blocked[0].kind == "folder" else "folder"
        raise Conflict(
            f"member {blocked[0].name!r} is a {blocked[0].kind}, but {given_dest} already holds a {other} "
            "at that path; extract into another destination"
        )
    in_the_way = [m.name for m, t in files if t.exists() and not overwrite]
    if in_the_way:
        raise Conflict(
            f"{len(in_the_way)} member(s) already exist in {given_dest}, e.g. {in_the_way[0]!r}; "
            "pass overwrite=true or extract into another destination"
        )


def _copy_member(archive: Archive, member: Member, target: Path, budget: int) -> int:
    """Stream one member to `target`, stopping at `budget` bytes: a header can lie about size."""
    written = 0
    with archive.open(member.name) as source, target.open("wb") as sink:
        while chunk := source.read(COPY_CHUNK):
            written += len(chunk)
            if written > budget:
                sink.close()
                target.unlink(missing_ok=True)
                raise InvalidRequest(
                    f"{member.name!r} unpacks to more than its archive header says, past the extraction limit; "
                    "extraction stopped, the members before it were written"
                )
            sink.write(chunk)
    return written

"""Core changes: write, append, make folders, copy, move and delete."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from facade.kit import CallContext, Conflict, Forbidden, Input, InvalidRequest, NotFound, Toolset
from pydantic import Field

from domains.files.args import FilePath
from domains.files.content import WriteEncoding, check_write, encode
from domains.files.entries import iso, kind_of
from domains.files.sandbox import display, is_root, os_errors, resolve
from domains.files.settings import settings

tools = Toolset()


class WriteArgs(Input):
    path: FilePath
    content: str
    encoding: WriteEncoding = "text"
    overwrite: bool = False


@tools.capability(
    "write", tier="core", destructive=True,
    example={"path": "notes/hello.txt", "content": "Hello from Facade.\n"},
)
def write(ctx: CallContext, args: WriteArgs) -> dict[str, Any]:
    """Write a file, creating its folders."""
    data = encode(args.content, args.encoding)
    check_write(len(data), settings().max_write_bytes)
    real = resolve(args.path)
    if real.is_dir():
        raise InvalidRequest(f"{args.path} is a folder; give a file path inside it, e.g. {args.path.rstrip('/')}/a.txt")
    existed = real.exists()
    if existed and not args.overwrite:
        raise Conflict(f"{args.path} already exists; pass overwrite=true to replace it")
    with os_errors(args.path):
        real.parent.mkdir(parents=True, exist_ok=True)
        # "x" makes the existence check and the creation one step when not overwriting.
        with real.open("wb" if args.overwrite else "xb") as handle:
            handle.write(data)
        info = real.stat()
    return {"path": display(real), "size": info.st_size, "modified": iso(info.st_mtime), "replaced": existed}


class AppendArgs(Input):
    path: FilePath
    content: str = Field(min_length=1)
    create: bool = Field(default=True, description="Create the file if it does not exist.")


@tools.capability(
    "append", tier="core",
    example={"path": "notes/todo.txt", "content": "- [ ] Water the office plants\n"},
)
def append(ctx: CallContext, args: AppendArgs) -> dict[str, Any]:
    """Add text to the end of a file."""
    data = args.content.encode("utf-8")
    check_write(len(data), settings().max_write_bytes)
    real = resolve(args.path)
    if real.is_dir():
        raise InvalidRequest(f"{args.path} is a folder; give a file path")
    if not real.exists() and not args.create:
        raise NotFound(f"{args.path} does not exist; pass create=true to start it, or check the name with files.list")
    with os_errors(args.path):
        real.parent.mkdir(parents=True, exist_ok=True)
        with real.open("ab") as handle:
            handle.write(data)
        info = real.stat()
    return {"path": display(real), "appended": len(data), "size": info.st_size, "modified": iso(info.st_mtime)}


class MkdirArgs(Input):
    path: FilePath


@tools.capability("mkdir", tier="core", idempotent=True, example={"path": "projects/2026"})
def mkdir(ctx: CallContext, args: MkdirArgs) -> dict[str, Any]:
    """Create a folder and any missing parents."""
    real = resolve(args.path)
    if real.exists() and not real.is_dir():
        raise Conflict(f"{args.path} already exists as a file; pick another folder name")
    existed = real.exists()
    with os_errors(args.path):
        real.mkdir(parents=True, exist_ok=True)
    return {"path": display(real), "created": not existed}


class CopyArgs(Input):
    source: FilePath
    destination: FilePath
    overwrite: bool = False


@tools.capability(
    "copy", tier="core", destructive=True,
    example={"source": "reports/summary.md", "destination": "archive/summary-2026.md"},
)
def copy(ctx: CallContext, args: CopyArgs) -> dict[str, Any]:
    """Copy a file or a folder with its content."""
    source, target = resolve(args.source), resolve(args.destination)
    _check_pair(source, target, args.source, args.destination, args.overwrite)
    skipped: list[str] = []
    with os_errors(args.destination):
        _clear(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=_non_regular(skipped))
            copied = sum(len(files) for _, _, files in os.walk(target))
        else:
            shutil.copy2(source, target)
            copied = 1
    result: dict[str, Any] = {"source": display(source), "destination": display(target), "files_copied": copied}
    if skipped:
        result["skipped"] = skipped  # links and special files: copying them could pull in outside content
    return result


class MoveArgs(Input):
    source: FilePath
    destination: FilePath
    overwrite: bool = False


@tools.capability(
    "move", tier="core", destructive=True,
    example={"source": "scratch/move-me.txt", "destination": "archive/moved.txt"},
)
def move(ctx: CallContext, args: MoveArgs) -> dict[str, Any]:
    """Move or rename a file or folder."""
    # A link is moved as itself, never the file it points to.
    source, target = resolve(args.source, follow=False), resolve(args.destination, follow=False)
    _check_pair(source, target, args.source, args.destination, args.overwrite)
    with os_errors(args.source):
        _clear(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(source, target)
    return {"source": display(source), "destination": display(target)}


class DeleteArgs(Input):
    path: FilePath
    recursive: bool = Field(default=False, description="Required to delete a folder that is not empty.")


# Nothing restores a deleted file or folder (no trash): the host asks its user first (approval 1).
@tools.capability("delete", tier="core", approval=1, destructive=True, example={"path": "scratch/delete-me.txt"})
def delete(ctx: CallContext, args: DeleteArgs) -> dict[str, Any]:
    """Delete a file or a folder."""
    real = resolve(args.path, follow=False)  # a link is deleted itself, never its target
    if is_root(real):
        raise Forbidden("the root folder cannot be deleted; delete the entries inside it instead")
    if not os.path.lexists(real):
        raise NotFound(f"{args.path} does not exist; list its folder with files.list")
    kind = kind_of(real.lstat().st_mode)
    with os_errors(args.path):
        if kind != "folder":
            real.unlink()
        elif args.recursive:
            shutil.rmtree(real)  # rmtree unlinks links inside, never follows them
        elif any(real.iterdir()):
            raise Conflict(f"{args.path} is a folder that is not empty; pass recursive=true to delete it with its content")
        else:
            real.rmdir()
    return {"path": display(real), "type": kind, "deleted": True}


def _check_pair(source: Path, target: Path, given_source: str, given_target: str, overwrite: bool) -> None:
    """The rules copy and move share: the source exists, the root stays, nothing lands in
    itself, and an existing destination is replaced only on request and only by its kind."""
    if not os.path.lexists(source):
        raise NotFound(f"{given_source} does not exist; list its folder with files.list")
    if is_root(source) or is_root(target):
        raise Forbidden("the root folder itself cannot be copied, moved or replaced; name an entry inside it")
    if source == target:
        raise InvalidRequest(f"{given_source} and {given_target} are the same entry; give another destination")
    if target.is_relative_to(source) or source.is_relative_to(target):
        raise InvalidRequest(f"{given_target} is inside {given_source} (or the reverse); pick a destination outside it")
    if kind_of(source.lstat().st_mode) == "other":
        raise InvalidRequest(
            f"{given_source} is a special file (a pipe or device); only files and folders can be copied or moved"
        )
    if not os.path.lexists(target):
        return
    if not overwrite:
        raise Conflict(f"{given_target} already exists; pass overwrite=true to replace it")
    if source.is_dir() != target.is_dir():
        what = "a folder" if target.is_dir() else "a file"
        raise Conflict(f"{given_target} is {what} and {given_source} is not; overwrite only replaces the same kind")


def _clear(target: Path) -> None:
    """Remove an existing destination (the caller has checked overwrite was asked for)."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif os.path.lexists(target):
        target.unlink()


def _non_regular(skipped: list[str]) -> Callable[[str, list[str]], set[str]]:
    """A copytree `ignore` that leaves out links and special files, recording them."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        left_out = {n for n in names if kind_of(os.lstat(os.path.join(folder, n)).st_mode) not in ("file", "folder")}
        skipped.extend(display(Path(folder) / n) for n in sorted(left_out))
        return left_out

    return ignore

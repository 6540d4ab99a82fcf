"""Full-tier looks at the tree: a recursive listing, disk usage, recent files, raw metadata."""

from __future__ import annotations

import shutil
import stat as st
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from facade.kit import CallContext, Input, Toolset
from pydantic import Field

from domains.files.args import FilePath, FolderPath, Limit, Offset
from domains.files.entries import describe, files_under, iso, kind_of, need_folder, page, walk
from domains.files.sandbox import display, os_errors, resolve, root

tools = Toolset()


class TreeArgs(Input):
    path: FolderPath = "/"
    max_depth: int = Field(default=3, ge=1, le=32)
    limit: Limit = 200
    offset: Offset = 0


@tools.capability("tree", tier="full", read_only=True, example={"path": "/", "max_depth": 2})
def tree(ctx: CallContext, args: TreeArgs) -> dict[str, Any]:
    """List a folder recursively, depth first."""
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    with os_errors(args.path):
        entries = list(walk(real, base, max_depth=args.max_depth))
    chunk, paging = page(entries, args.limit, args.offset)
    return {
        "path": display(real, base),
        "entries": [{**describe(e), "depth": e.depth} for e in chunk],
        **paging,
    }


class DiskUsageArgs(Input):
    path: FolderPath = "/"
    top: int = Field(default=10, ge=0, le=100, description="How many of the largest files to name.")


@tools.capability("disk_usage", tier="full", read_only=True, example={"path": "/"})
def disk_usage(ctx: CallContext, args: DiskUsageArgs) -> dict[str, Any]:
    """Sum the size of a folder, by file type, with its largest files."""
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    counts: Counter[str] = Counter()
    by_ext_bytes: Counter[str] = Counter()
    by_ext_files: Counter[str] = Counter()
    files = []
    with os_errors(args.path):
        for entry in walk(real, base):
            counts[entry.kind] += 1
            if entry.kind == "file":
                ext = entry.path.suffix.lower() or "(none)"
                by_ext_bytes[ext] += entry.stat.st_size
                by_ext_files[ext] += 1
                files.append(entry)
        disk = shutil.disk_usage(base)
    files.sort(key=lambda e: (-e.stat.st_size, e.rel))
    return {
        "path": display(real, base),
        "bytes": sum(by_ext_bytes.values()),
        "files": counts["file"],
        "folders": counts["folder"],
        "links": counts["link"],
        "by_extension": [
            {"extension": ext, "files": by_ext_files[ext], "bytes": size} for ext, size in by_ext_bytes.most_common()
        ],
        "largest": [{"path": e.rel, "size": e.stat.st_size} for e in files[: args.top]],
        "filesystem": {"total": disk.total, "used": disk.used, "free": disk.free},
    }


class RecentArgs(Input):
    path: FolderPath = "/"
    since: datetime | None = Field(default=None, description="Only files modified after this time (UTC if no zone).")
    limit: Limit = 20
    offset: Offset = 0


@tools.capability("recent", tier="full", read_only=True, example={"path": "/", "limit": 5})
def recent(ctx: CallContext, args: RecentArgs) -> dict[str, Any]:
    """List the most recently modified files under a folder, newest first."""
    real = resolve(args.path)
    need_folder(real, args.path)
    base = root()
    after = None
    if args.since is not None:
        since = args.since if args.since.tzinfo else args.since.replace(tzinfo=UTC)
        after = since.timestamp()
    with os_errors(args.path):
        files = [e for e in files_under(real, base) if after is None or e.stat.st_mtime > after]
    files.sort(key=lambda e: (-e.stat.st_mtime, e.rel))
    chunk, paging = page(files, args.limit, args.offset)
    return {"path": display(real, base), "files": [describe(e) for e in chunk], **paging}


class StatRawArgs(Input):
    path: FilePath
    follow: bool = Field(default=True, description="False: describe a link itself, not its target.")


@tools.capability("stat_raw", tier="full", read_only=True, example={"path": "notes/todo.txt"})
def stat_raw(ctx: CallContext, args: StatRawArgs) -> dict[str, Any]:
    """Dump every field the operating system keeps about a file or folder."""
    real = resolve(args.path, follow=args.follow)
    with os_errors(args.path):
        info = real.lstat()
    result: dict[str, Any] = {
        "path": display(real),
        "type": kind_of(info.st_mode),
        "mode": info.st_mode,
        "mode_octal": oct(st.S_IMODE(info.st_mode)),
        "permissions": st.filemode(info.st_mode),
        "inode": info.st_ino,
        "device": info.st_dev,
        "hard_links": info.st_nlink,
        "uid": info.st_uid,
        "gid": info.st_gid,
        "owner": _name_of("pwd", info.st_uid),
        "group": _name_of("grp", info.st_gid),
        "size": info.st_size,
        "accessed": iso(info.st_atime),
        "modified": iso(info.st_mtime),
        "changed": iso(info.st_ctime),
        "accessed_ns": info.st_atime_ns,
        "modified_ns": info.st_mtime_ns,
        "changed_ns": info.st_ctime_ns,
    }
    # Platform-dependent fields, reported where the OS has them.
    for field, key in (("st_blocks", "blocks"), ("st_blksize", "block_size"), ("st_rdev", "rdev"),
                       ("st_flags", "flags"), ("st_birthtime", "created")):
        value = getattr(info, field, None)
        if value is not None:
            result[key] = iso(value) if key == "created" else value
    return result


def _name_of(module: str, ident: int) -> str | None:
    """The user or group name of an id, when this platform and its databases know it."""
    try:
        if module == "pwd":
            import pwd

            return pwd.getpwuid(ident).pw_name
        import grp

        return grp.getgrgid(ident).gr_name
    except (ImportError, KeyError):
        return None

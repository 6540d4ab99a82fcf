"""Full-tier digests: hash a file or a folder's files, verify a digest, find duplicates."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from facade.kit import CallContext, Input, Toolset
from pydantic import Field

from domains.files.args import Algorithm, FilePath, FolderPath, Limit, Offset
from domains.files.entries import Entry, files_under, need_file, need_folder, page
from domains.files.sandbox import display, os_errors, resolve, root
from domains.files.seed import TREE

tools = Toolset()


def digest(path: Path, algorithm: str) -> str:
    """The hex digest of a file, streamed: hashing has no size limit."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, algorithm).hexdigest()


class HashArgs(Input):
    path: FilePath
    algorithm: Algorithm = "sha256"


@tools.capability(
    "hash", tier="full", read_only=True, example={"path": "reports/q1-sales.csv", "algorithm": "sha256"}
)
def hash_file(ctx: CallContext, args: HashArgs) -> dict[str, Any]:
    """Compute a file's checksum."""
    real = resolve(args.path)
    with os_errors(args.path):
        size = need_file(real, args.path).st_size
        value = digest(real, args.algorithm)
    return {"path": display(real), "algorithm": args.algorithm, "digest": value, "size": size}


class HashFolderArgs(Input):
    path: FolderPath = "/"
    algorithm: Algorithm = "sha256"
    limit: Limit = 100
    offset: Offset = 0


@tools.capability("hash_folder", tier="full", read_only=True, example={"path": "reports"})
def hash_folder(ctx: CallContext, args: HashFolderArgs) -> dict[str, Any]:
    """Compute the checksum of every file under a folder, as a manifest."""
    real = resolve(args.path)
    need_folder(real, args.path)
    with os_errors(args.path):
        files = list(files_under(real, root()))
        chunk, paging = page(files, args.limit, args.offset)  # only the page is hashed
        rows = [{"path": e.rel, "size": e.stat.st_size, "digest": digest(e.path, args.algorithm)} for e in chunk]
    return {"path": display(real), "algorithm": args.algorithm, "files": rows, **paging}


class VerifyArgs(Input):
    path: FilePath
    expected: str = Field(min_length=8, max_length=256, description="The hex digest the file should have.")
    algorithm: Algorithm = "sha256"


_README = TREE["photos/README.md"][0]
_README_SHA256 = hashlib.sha256(_README if isinstance(_README, bytes) else _README.encode()).hexdigest()


@tools.capability(
    "verify", tier="full", read_only=True,
    example={"path": "photos/README.md", "expected": _README_SHA256, "algorithm": "sha256"},
)
def verify(ctx: CallContext, args: VerifyArgs) -> dict[str, Any]:
    """Check a file against an expected checksum."""
    real = resolve(args.path)
    with os_errors(args.path):
        need_file(real, args.path)
        actual = digest(real, args.algorithm)
    return {
        "path": display(real),
        "algorithm": args.algorithm,
        "matches": actual == args.expected.strip().lower(),
        "digest": actual,
    }


class DuplicatesArgs(Input):
    path: FolderPath = "/"
    min_size: int = Field(default=1, ge=0, description="Ignore files smaller than this many bytes.")
    limit: Limit = 50
    offset: Offset = 0


@tools.capability("duplicates", tier="full", read_only=True, example={"path": "/"})
def duplicates(ctx: CallContext, args: DuplicatesArgs) -> dict[str, Any]:
    """Find files with identical content under a folder, grouped."""
    real = resolve(args.path)
    need_folder(real, args.path)
    by_size: dict[int, list[Entry]] = defaultdict(list)
    with os_errors(args.path):
        for entry in files_under(real, root()):
            if entry.stat.st_size >= args.min_size:
                by_size[entry.stat.st_size].append(entry)
        # Only files that share a size can share content: most files are never read.
        by_digest: dict[tuple[int, str], list[str]] = defaultdict(list)
        for size, entries in by_size.items():
            if len(entries) > 1:
                for entry in entries:
                    by_digest[(size, digest(entry.path, "sha256"))].append(entry.rel)
    groups = [
        {"digest": key[1], "size": key[0], "paths": paths, "wasted_bytes": key[0] * (len(paths) - 1)}
        for key, paths in by_digest.items()
        if len(paths) > 1
    ]
    groups.sort(key=lambda g: (-g["wasted_bytes"], g["paths"][0]))
    chunk, paging = page(groups, args.limit, args.offset)
    return {
        "path": display(real),
        "groups": chunk,
        "wasted_bytes": sum(g["wasted_bytes"] for g in groups),
        **paging,
    }

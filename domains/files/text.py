"""Full-tier work on text: search lines (grep), compare two files (diff), read the end (tail)."""

from __future__ import annotations

import difflib
import fnmatch
from typing import Any

from facade.kit import CallContext, Input, InvalidRequest, Toolset, deadline, user_pattern
from pydantic import Field

from domains.files.args import FilePath, FolderPath, Limit, Offset
from domains.files.content import looks_binary, read_text
from domains.files.entries import files_under, need_file, page
from domains.files.sandbox import display, os_errors, resolve, root
from domains.files.settings import settings

tools = Toolset()

LINE_CHARS = 300


class GrepArgs(Input):
    path: FolderPath = "/"
    pattern: str = Field(min_length=1, max_length=1000)
    regex: bool = Field(default=False, description="Treat pattern as an RE2 regular expression.")
    case_sensitive: bool = False
    name: str | None = Field(
        default=None, min_length=1, max_length=255, description="Only files whose name matches this glob."
    )
    limit: Limit = 100
    offset: Offset = 0


@tools.capability("grep", tier="full", read_only=True, example={"path": "notes", "pattern": "budget"})
def grep(ctx: CallContext, args: GrepArgs) -> dict[str, Any]:
    """Find the lines that contain a text or pattern, in a file or under a folder."""
    matcher = user_pattern(args.pattern, field="pattern", regex=args.regex, ignore_case=not args.case_sensitive)
    real = resolve(args.path)
    base = root()
    scan_limit = settings().max_scan_bytes
    with os_errors(args.path):
        if real.is_dir():
            paths = [entry.path for entry in files_under(real, base)]
        else:
            need_file(real, args.path)
            paths = [real]
        matches: list[dict[str, Any]] = []
        skipped = 0
        for path in paths:
            deadline.check()
            if args.name is not None and not fnmatch.fnmatchcase(path.name.casefold(), args.name.casefold()):
                continue
            try:
                if path.stat().st_size > scan_limit:
                    skipped += 1
                    continue
                data = path.read_bytes()
            except OSError:
                continue  # vanished or unreadable mid-walk: not a match
            if looks_binary(data):
                continue
            rel = display(path, base)
            for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
                if matcher.search(line):
                    matches.append({"path": rel, "line": number, "text": line[:LINE_CHARS]})
    chunk, paging = page(matches, args.limit, args.offset)
    result: dict[str, Any] = {"matches": chunk, **paging}
    if skipped:
        result["skipped_large_files"] = skipped
    return result


class DiffArgs(Input):
    a: FilePath
    b: FilePath
    context: int = Field(default=3, ge=0, le=20, description="Unchanged lines shown around each change.")


@tools.capability(
    "diff", tier="full", read_only=True, example={"a": "archive/todo-2025.txt", "b": "notes/todo.txt"}
)
def diff(ctx: CallContext, args: DiffArgs) -> dict[str, Any]:
    """Compare two text files line by line, as a unified diff."""
    limit = settings().max_read_bytes
    real_a, real_b = resolve(args.a), resolve(args.b)
    with os_errors(args.a):
        need_file(real_a, args.a)
        text_a = read_text(real_a, args.a, limit)
    with os_errors(args.b):
        need_file(real_b, args.b)
        text_b = read_text(real_b, args.b, limit)
    name_a, name_b = display(real_a), display(real_b)
    lines = list(
        difflib.unified_diff(
            text_a.splitlines(keepends=True), text_b.splitlines(keepends=True), name_a, name_b, n=args.context
        )
    )
    body = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    changed = [line for line in lines if not line.startswith(("---", "+++"))]
    truncated = len(body) > limit
    return {
        "a": name_a,
        "b": name_b,
        "identical": not lines,
        "added": sum(1 for line in changed if line.startswith("+")),
        "removed": sum(1 for line in changed if line.startswith("-")),
        "diff": body[:limit],
        "truncated": truncated,
    }


class TailArgs(Input):
    path: FilePath
    lines: int = Field(default=20, ge=1, le=1000)


@tools.capability("tail", tier="full", read_only=True, example={"path": "scratch/build-1.log", "lines": 5})
def tail(ctx: CallContext, args: TailArgs) -> dict[str, Any]:
    """Read the last lines of a text file, such as a log."""
    limit = settings().max_read_bytes
    real = resolve(args.path)
    with os_errors(args.path):
        size = need_file(real, args.path).st_size
        # Read backwards in blocks until enough lines are in, never more than the read limit.
        chunk = b""
        with real.open("rb") as handle:
            at = size
            while at > 0 and chunk.count(b"\n") <= args.lines and len(chunk) < limit:
                step = min(65_536, at, limit - len(chunk))
                at -= step
                handle.seek(at)
                chunk = handle.read(step) + chunk
    if looks_binary(chunk):
        raise InvalidRequest(f"{args.path} is a binary file; read it with files.read encoding='base64'")
    text_lines = chunk.decode("utf-8", errors="replace").splitlines()
    if at > 0:
        text_lines = text_lines[1:]  # a read that stopped before the start may begin mid-line
    kept = text_lines[-args.lines :]
    content = "".join(line + "\n" for line in kept)
    return {"path": display(real), "size": size, "lines": len(kept), "content": content}

"""The served-catalogue trace: for every `tools/list` answered, one JSONL event in the
trajectory envelope (`traceSchema`, `schemaVersion`, `traceId`, `type`, `ts`, `seq`, `data`),
so that what an agent was actually shown is read later, not estimated. Events are encoded with
orjson: with `full` an event carries the whole tools array, megabytes at 10,000 tools.

The file is bounded: past `max_bytes` it becomes `trace.jsonl.1` (the one before that `.2`, and
so on up to `keep`; the oldest is dropped) and a new one begins. An event names every tool it
served, so at 10,449 capabilities each runtime listing appended 320 KB (2026-12-07, measured on
scripts/bench_scale.py's catalogue): 460 MB a day at one listing a minute, computed. Every
process serving from a data folder (`--workers`, `facade stdio` beside `facade serve`) appends
to the same file: one of them rotates it, under a lock beside it, and the others notice that the
path names a new file before their next event. So does a trace moved away by anything else
(logrotate, an operator): the next event starts a new file, nothing is written to the moved one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISREG
from typing import Any

import orjson
import structlog

from facade.catalogue.served import Served
from facade.file_lock import file_lock
from facade.settings import TRACE_KEEP, TRACE_MAX_BYTES

TRACE_SCHEMA = "facade.trajectory"
SCHEMA_VERSION = 1
EVENT_TYPE = "context.compiled"

log = structlog.get_logger("facade.catalogue.trace")


class Trace:
    """Appends events to one JSONL file, rotated past `max_bytes` (0: never) with `keep` older
    files kept; safe across threads and processes, one whole line per event."""

    def __init__(self, path: Path, *, full: bool = False, max_bytes: int = TRACE_MAX_BYTES, keep: int = TRACE_KEEP) -> None:
        if max_bytes < 0 or keep < 1:
            raise ValueError(f"a trace needs max_bytes >= 0 and keep >= 1, not {max_bytes} and {keep}")
        self.path = path
        self.full = full
        self.max_bytes = max_bytes
        self.keep = keep
        self._lock = threading.Lock()
        self._seq = 0
        self._file: Any = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the open file
        self._rotates = max_bytes > 0  # until a rotation fails

    def served(self, served: Served, *, agent: str | None, conversation: str | None, era: str, runtime: bool) -> None:
        wire = served.wire(era)
        data: dict[str, Any] = {
            "method": "tools/list",
            "agent": agent,
            "runtime": runtime,
            "conversation": conversation,
            "protocol": era,
            "tools": list(served.names),
            "toolCount": len(served.names),
            "bytes": wire.bytes,
            "sha256": wire.sha256,
        }
        if self.full:
            data["toolsArray"] = list(served.tools)
        self._append(conversation or f"agent:{agent}", data)

    def _append(self, trace_id: str, data: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            event = {
                "traceSchema": TRACE_SCHEMA,
                "schemaVersion": SCHEMA_VERSION,
                "traceId": trace_id,
                "type": EVENT_TYPE,
                "ts": time.time(),
                "seq": self._seq,
                "data": data,
            }
            line = orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
            found = _stat(self.path)  # one system call tells both which file the path names and its size
            file = self._current(found)
            file.write(line)
            file.flush()  # one whole line per event, readable at once
            size = _size(found)
            if self._rotates and size is not None and size + len(line) >= self.max_bytes:
                try:
                    self._rotate()
                except OSError as exc:  # a listing is answered whatever becomes of its trace
                    log.warning("trace.not_rotated", path=str(self.path), error=str(exc),
                                hint="the trace grows until this server restarts; free the folder or set FACADE_TRACE_PATH")
                    self._rotates = False

    def _current(self, found: os.stat_result | None) -> Any:
        """The open file, reopened when the path (`found`) no longer names it: rotated or moved away."""
        if self._file is not None and _identity(found) != self._identity:
            self._close()
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")
            self._identity = _identity(os.fstat(self._file.fileno()))
        return self._file

    def _rotate(self) -> None:
        """The full file becomes `.1`, unless another process rotated it first."""
        with file_lock(f"{self.path}.lock"):
            stat = _stat(self.path)
            size = _size(stat)
            if _identity(stat) == self._identity and size is not None and size >= self.max_bytes:
                for number in range(self.keep, 1, -1):
                    older = rotated(self.path, number - 1)
                    if older.exists():
                        os.replace(older, rotated(self.path, number))
                os.replace(self.path, rotated(self.path, 1))
                beyond = self.keep + 1  # kept under a larger `keep` set before
                while (dropped := rotated(self.path, beyond)).exists():
                    dropped.unlink()
                    beyond += 1
        self._close()

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._identity = None

    def close(self) -> None:
        with self._lock:
            self._close()


def rotated(path: Path, number: int) -> Path:
    """The `number`-th file before the current one (1 is the newest)."""
    return path.with_name(f"{path.name}.{number}")


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _size(stat: os.stat_result | None) -> int | None:
    """What the trace holds (0 before its first event), for rotating it; None for a pipe or a
    device (`/dev/null`, a FIFO a collector reads), which is written to and never rotated."""
    if stat is None:
        return 0
    return stat.st_size if S_ISREG(stat.st_mode) else None


def _identity(stat: os.stat_result | None) -> tuple[int, int] | None:
    """Which file it is: the same path names another file once the trace is rotated."""
    return None if stat is None else (stat.st_dev, stat.st_ino)


def trace_files(path: Path) -> Iterator[Path]:
    """The trace and its rotated files that exist, newest first."""
    if path.exists():
        yield path
    number = 1
    while (older := rotated(path, number)).exists():
        yield older
        number += 1


def last_served(path: Path, agent: str, conversation: str | None) -> dict[str, Any] | None:
    """The newest served-catalogue event for (agent, conversation), read from the end of the
    trace, then of each rotated file, newest first."""
    for file in trace_files(path):
        for line in _reverse_lines(file):
            try:
                event = orjson.loads(line)
            except ValueError:
                continue
            data = event.get("data", {})
            if event.get("type") == EVENT_TYPE and data.get("agent") == agent and data.get("conversation") == conversation:
                return event
    return None


def _reverse_lines(path: Path, block: int = 1 << 16) -> Any:
    try:
        handle = open(path, "rb")
    except FileNotFoundError:  # rotated away since it was found: its events are read under their new name
        return
    with handle:
        handle.seek(0, os.SEEK_END)
        end = handle.tell()
        rest = b""
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start) + rest
            lines = chunk.split(b"\n")
            rest = lines.pop(0)
            for line in reversed(lines):
                if line.strip():
                    yield line.decode("utf-8", "replace")
            end = start
        if rest.strip():
            yield rest.decode("utf-8", "replace")

"""The served-catalogue trace: for every `tools/list` answered, one JSONL event in the
trajectory envelope (`traceSchema`, `schemaVersion`, `traceId`, `type`, `ts`, `seq`, `data`),
so that what an agent was actually shown is read later, not estimated. Events are encoded with
orjson: with `full` an event carries the whole tools array, megabytes at 10,000 tools."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from facade.catalogue.served import Served

TRACE_SCHEMA = "facade.trajectory"
SCHEMA_VERSION = 1
EVENT_TYPE = "context.compiled"


class Trace:
    """Appends events to one JSONL file; safe across threads, one line per event."""

    def __init__(self, path: Path, *, full: bool = False) -> None:
        self.path = path
        self.full = full
        self._lock = threading.Lock()
        self._seq = 0
        self._file: Any = None

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
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "ab")
            self._file.write(orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE))
            self._file.flush()  # one whole line per event, readable at once

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def last_served(path: Path, agent: str, conversation: str | None) -> dict[str, Any] | None:
    """The newest served-catalogue event for (agent, conversation), read from the end."""
    if not path.exists():
        return None
    for line in _reverse_lines(path):
        try:
            event = orjson.loads(line)
        except ValueError:
            continue
        data = event.get("data", {})
        if event.get("type") == EVENT_TYPE and data.get("agent") == agent and data.get("conversation") == conversation:
            return event
    return None


def _reverse_lines(path: Path, block: int = 1 << 16) -> Any:
    with open(path, "rb") as handle:
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

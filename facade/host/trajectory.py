"""The trajectory: every event of a session as one JSONL envelope, so that what the model was
sent is recorded rather than estimated later.

Envelope: `traceSchema`, `schemaVersion`, `traceId` (the session id, so a resumed session
continues its trace), `type`, `ts` (UTC, ISO 8601), `seq` (continues across resumptions), `data`.
Events: `session.started`, `context.compiled` (the exact tools array, system prompt and messages
of the request body, and the request's size against the window), `model.completed` (usage, and
`tokens`: the request's prompt, cached, prefilled and completion tokens as the server reported them),
`tool.completed`, `context.compacted` (what was summarised and kept, by whom, the request's tokens
before and after, and why: the threshold or an overflow), `context.overflowed` (the server refused
a request as too long: its words, the window it showed, and what the host did), `session.ended`. Model calls carry a `purpose`: `turn`, or `compaction` for the
call that wrote a summary. `model_requests` reads one row per model request back, for a run's table.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TRACE_SCHEMA = "facade.host.trajectory"
SCHEMA_VERSION = 1


class Trajectory:
    """Appends events to `path`.

    Attributes:
        path: the JSONL file.
        trace_id: the id every envelope carries.
        seq: the next event's sequence number.
    """

    def __init__(self, path: Path, trace_id: str) -> None:
        self.path = path
        self.trace_id = trace_id
        path.parent.mkdir(parents=True, exist_ok=True)
        self.seq = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()) if path.exists() else 0

    def emit(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        envelope = {
            "traceSchema": TRACE_SCHEMA,
            "schemaVersion": SCHEMA_VERSION,
            "traceId": self.trace_id,
            "type": type_,
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "seq": self.seq,
            "data": data,
        }
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(envelope, ensure_ascii=False) + "\n")
        self.seq += 1
        return envelope


def read_trajectory(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def model_requests(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every model request of a trajectory, one row each, for a run's table: turn, call, purpose,
    the tools it asked for, and its prompt / cached / prefilled / completion tokens (`model.completed`'s
    `tokens`), with `prefilled_share` = prefilled / prompt (None when the server reported no prompt)."""
    rows = []
    for event in events:
        if event.get("type") != "model.completed":
            continue
        data = event["data"]
        tokens = data.get("tokens") or {}
        prompt = int(tokens.get("prompt") or 0)
        rows.append(
            {
                "turn": data.get("turn"),
                "call": data.get("call"),
                "purpose": data.get("purpose"),
                "tool_calls": list(data.get("tool_calls") or []),
                **tokens,
                "prefilled_share": round(int(tokens.get("prefilled") or 0) / prompt, 4) if prompt else None,
            }
        )
    return rows

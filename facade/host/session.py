"""A conversation with one agent, persisted as JSONL as it happens.

One record per line, appended and flushed at once, so a crash loses at most the line being
written: a `session` header, then `message`, `usage` and `compaction` records in the order they
happened. Reloading replays them, which rebuilds the conversation and the usage ledger exactly: a
`compaction` record replaces the messages it summarised with its summary, so a resumed session
goes on from the compacted history, as the live one did. The session id doubles as the facade's
`conversation_id`, so an elevation granted in a session is still there when the session is
resumed (until the facade's TTL or a DELETE ends it).

Layout under the sessions folder: `<agent>/<id>.jsonl`, the trajectory beside it as
`<id>.trajectory.jsonl`, apps the model made in `<id>.artifacts/`.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from facade.host.messages import Message
from facade.host.usage import TURN, ModelCall, Usage, UsageLedger

SESSION_SCHEMA = 1
# Agent names and session ids become file and folder names: one path segment each, never `..`.
PATH_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def check_segment(kind: str, value: str) -> str:
    if not PATH_SEGMENT.fullmatch(value) or ".." in value:
        raise ValueError(f"{kind} {value!r}: use letters, digits, '.', '_' and '-' only")
    return value


def new_session_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


@dataclass
class Session:
    """One persisted conversation.

    Attributes:
        id: the session id, also the conversation id the facade sees.
        agent: the agent it talks as.
        path: its JSONL file.
        messages: the whole conversation, oldest first (neutral format).
        ledger: every model call's usage.
        turn: the number of user turns so far.
    """

    id: str
    agent: str
    path: Path
    messages: list[Message] = field(default_factory=list)
    ledger: UsageLedger = field(default_factory=UsageLedger)
    turn: int = 0

    @classmethod
    def open(cls, folder: Path, agent: str, session_id: str | None = None, **header: Any) -> Session:
        """Resume `session_id` when its file exists, else start it (a fresh id when None)."""
        sid = check_segment("session id", session_id or new_session_id())
        path = folder / check_segment("agent name", agent) / f"{sid}.jsonl"
        if path.exists():
            return cls.load(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        session = cls(sid, agent, path)
        session._write({"type": "session", "schema": SESSION_SCHEMA, "id": sid, "agent": agent, "created": time.time(), **header})
        return session

    @classmethod
    def load(cls, path: Path) -> Session:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if not records or records[0].get("type") != "session":
            raise ValueError(f"{path} is not a facade host session (its first line is not a session header)")
        session = cls(records[0]["id"], records[0]["agent"], path)
        calls: list[ModelCall] = []
        for record in records[1:]:
            if record["type"] == "message":
                session.messages.append(record["message"])
                session.turn = max(session.turn, int(record["turn"]))
            elif record["type"] == "usage":
                calls.append(ModelCall.from_dict(record))
            elif record["type"] == "compaction":
                session.messages[: int(record["replaced"])] = [record["summary"]]
        session.ledger = UsageLedger.rebuild(calls)
        return session

    @property
    def trajectory_path(self) -> Path:
        return self.path.with_name(f"{self.id}.trajectory.jsonl")

    @property
    def artifacts_dir(self) -> Path:
        return self.path.with_name(f"{self.id}.artifacts")

    def start_turn(self, text: str) -> int:
        """A new user message: the next turn begins."""
        self.turn += 1
        self.add({"role": "user", "content": text})
        return self.turn

    def add(self, message: Message) -> None:
        self.messages.append(message)
        self._write({"type": "message", "turn": self.turn, "message": message})

    def record_usage(self, usage: Usage, tool_calls: int, purpose: str = TURN, refused: bool = False, cut_off: bool = False) -> ModelCall:
        call = self.ledger.record(self.turn, usage, tool_calls, purpose, refused, cut_off)
        self._write({"type": "usage", **call.to_dict()})
        return call

    def compact(self, summary: Message, replaced: int) -> None:
        """The first `replaced` messages become `summary` (compaction), here and on disk."""
        if not 0 < replaced <= len(self.messages):
            raise ValueError(f"cannot replace {replaced} of {len(self.messages)} messages with a summary")
        self.messages[:replaced] = [summary]
        self._write({"type": "compaction", "turn": self.turn, "replaced": replaced, "summary": summary})

    def save_artifact(self, content: str, title: str | None, suffix: str = ".html") -> Path:
        """Write an app the model made; a fresh file name each time, never an overwrite."""
        self.artifacts_dir.mkdir(parents=True, exist_ok=True)
        stem = re.sub(r"[^a-z0-9]+", "-", (title or "app").lower()).strip("-")[:40] or "app"
        number = 1 + len(list(self.artifacts_dir.iterdir()))
        path = self.artifacts_dir / f"{number:02d}-{stem}{suffix}"
        path.write_text(content, encoding="utf-8")
        return path

    def _write(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

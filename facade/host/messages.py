"""The conversation as the host keeps it: plain dicts, provider-neutral, JSON as they are.

Every message has `role` and `content` (a string), which is all the context manager and
compaction need; tool traffic adds a few keys that only the provider adapters read:

- `{"role": "user", "content": str}`
- `{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments"}]}` —
  `tool_calls` only when the model asked for tools; `name` is the facade name (`domain.action`),
  never a provider-mangled one, so a session can change provider.
- `{"role": "tool", "tool_call_id": str, "name": str, "content": str, "is_error": bool}`
- `{"role": "system", "content": str}` — notes inserted by the context manager or compaction
  (an omission marker, a summary); adapters render them the way each API allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    """One tool the model may call, as `tools/list` announced it.

    Attributes:
        name: the facade name, `domain.action`.
        description: the tool's description, as served.
        input_schema: the announced JSON schema of its arguments (identity fields already absent).
        approval: 0 none, 1 the host must ask its user, 2 the server holds the call as a card.
        read_only: the tool announced `readOnlyHint`; the loop may repeat it safely.
        deferred: the server marks it deferred (`_meta["facade/deferred"]`): a deferring host
            gives it to the model only once found (facade/host/disclosure.py).
        destructive: the tool announced `destructiveHint: true` (it may delete or overwrite);
            the default policy asks before it runs.
    """

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    approval: int = 0
    read_only: bool = False
    deferred: bool = False
    destructive: bool = False

    @property
    def irreversible(self) -> bool:
        """Announced destructive, or at approval 1: the facade marks its irreversible tools so
        (the hint itself stays off its wire, at the MCP default, to save bytes)."""
        return self.destructive or self.approval == 1


@dataclass(frozen=True)
class ToolCall:
    """A call the model asked for.

    Attributes:
        id: the provider's id for the call (tool results quote it back); generated when absent.
        name: the facade name, already mapped back from the provider-safe one.
        arguments: the parsed arguments.
        error: set when the arguments could not be parsed; the loop returns it to the model
            instead of running the tool.
    """

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str, calls: list[ToolCall] | None = None) -> Message:
    message: Message = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [c.as_dict() for c in calls]
    return message


def tool_result(call: ToolCall, text: str, *, is_error: bool) -> Message:
    return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": text, "is_error": is_error}


def paired(messages: list[Message]) -> list[Message]:
    """The messages with every tool call next to its result, as both APIs require.

    The context manager drops old messages by relevance and may keep a result without the call
    that asked for it, or the reverse; OpenAI and Anthropic then refuse the whole request. An
    orphaned result becomes a plain note (its information stays); a call with no result loses
    its `tool_calls` (its text stays)."""
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    asked: set[str] = set()
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [c for c in message["tool_calls"] if c.get("id") in answered]
            asked.update(c["id"] for c in calls)
            kept = {k: v for k, v in message.items() if k != "tool_calls"}
            if calls:
                kept["tool_calls"] = calls
            elif not kept.get("content"):
                continue
            out.append(kept)
        elif role == "tool" and message.get("tool_call_id") not in asked:
            out.append({"role": "user", "content": f"[earlier result of {message.get('name', 'a tool')}]\n{message.get('content', '')}"})
        else:
            out.append(message)
    return out

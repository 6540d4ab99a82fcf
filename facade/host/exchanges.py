"""A tool call and its results are one exchange: kept, dropped or summarised whole.

OpenAI and Anthropic refuse a request in which a tool result has lost the call that asked for it,
or a call has lost its result; a model shown half an exchange also misreads it. The context
manager and compaction therefore cut histories only at the boundaries this module finds.

Messages follow `facade.host.messages`: an assistant message may carry `tool_calls`
(`[{"id", "name", "arguments"}]`); each result is `{"role": "tool", "tool_call_id": …}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Message = Mapping[str, Any]


def call_ids(message: Message) -> set[str]:
    return {str(c.get("id")) for c in message.get("tool_calls") or () if isinstance(c, Mapping)}


def is_result(message: Message) -> bool:
    return message.get("role") == "tool" or "tool_call_id" in message


def exchanges(messages: Sequence[Message]) -> list[range]:
    """The history split into units, in order, covering every index once: a message alone, or an
    assistant message with `tool_calls` together with the results that follow it.

    A result joins the open exchange when it answers one of its calls, or when it quotes no id
    (a fenced-protocol result answers the call just before it). A result answering nothing open
    stands alone: it was orphaned before it reached us, and gluing it to a stranger helps nobody."""
    units: list[range] = []
    start = 0
    for i in range(1, len(messages) + 1):
        if i < len(messages) and answers(messages[start], messages[i]):
            continue  # still inside the exchange that began at `start`
        units.append(range(start, i))
        start = i
    return units


def answers(head: Message, message: Message) -> bool:
    """Whether `message` is a result of a call made by `head`."""
    if not head.get("tool_calls") or not is_result(message):
        return False
    quoted = message.get("tool_call_id")
    return quoted is None or str(quoted) in call_ids(head)


def safe_start(messages: Sequence[Message], index: int) -> int:
    """The latest cut at or before `index` that splits no exchange: `messages[cut:]` then holds
    every call whose result it holds, and `messages[:cut]` every result whose call it holds."""
    if index <= 0:
        return 0
    if index >= len(messages):
        return len(messages)
    for unit in exchanges(messages):
        if unit.start <= index < unit.stop:
            return unit.start
    return index

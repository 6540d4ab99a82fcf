"""Who writes a compaction summary: the model, asked once; the host, when that call fails.

The model is the better summariser — it knows what mattered — so the loop asks it first, in one
extra model call that usage counts as its own (`ModelCall.purpose == "compaction"`). The request
holds no tools and carries the older messages as one plain transcript inside a user message:
every provider accepts that shape (native or fenced), the model cannot answer it with a tool
call, and no API is shown tool traffic for tools the request does not declare.

The transcript is fitted to the window too — the summary request must not overflow the window it
is meant to relieve: each message is cut in the middle past `TRANSCRIPT_MESSAGE_CHARS`, and when
the whole still does not fit, the oldest entries go (an earlier summary stays, first) behind a
line that says how many.

When the call fails (the endpoint errs, or answers with nothing), `host_summary` writes one from
the messages themselves: deterministic, a list rather than a condensation, and labelled as such so
the model knows what it is reading.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from facade.host.compaction import SUMMARY_INSTRUCTIONS, CompactionConfig, clean, compactable, continuation, is_summary, split
from facade.host.context import truncate_middle
from facade.host.messages import user
from facade.host.providers.base import ModelRequest, Provider, ProviderError, SystemParts, wire_parts
from facade.host.session import Session
from facade.host.tokenizer import TokenCounter
from facade.host.trajectory import Trajectory
from facade.host.usage import COMPACTION

Message = Mapping[str, Any]

SUMMARIZER_SYSTEM = (
    "You condense a conversation between a user and an AI assistant that works through tools, so "
    "that the assistant can go on from your summary alone. Answer with the summary only."
)
# A tool result of 20,000 characters says what it is in its head and how it ended in its tail;
# the summary keeps facts, not dumps. 4,000 characters is ~1,000 tokens.
TRANSCRIPT_MESSAGE_CHARS = 4_000
# The host's own summary stays well under the context manager's 12,000-character cut, so it is
# never truncated on its way to the model.
HOST_SUMMARY_CHARS = 8_000
HOST_LINE_CHARS = 300
HOST_CARRIED_SUMMARY_CHARS = 3_000


def _compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _one_line(text: str, limit: int) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def render(message: Message) -> str:
    """One message as a transcript entry."""
    role = message.get("role")
    if is_summary(message):
        inner = truncate_middle({"content": clean(str(message["content"]))}, TRANSCRIPT_MESSAGE_CHARS)["content"]
        return f"[summary of the conversation before this]\n{inner}"
    text = str(truncate_middle(message, TRANSCRIPT_MESSAGE_CHARS).get("content") or "")
    if role == "tool":
        verb = "failed" if message.get("is_error") else "returned"
        return f"[{message.get('name') or 'tool'} {verb}]\n{text}"
    if role == "assistant":
        parts = [f"[assistant]\n{text}"] if text.strip() else []
        parts += [f"[assistant called {c.get('name')}] {_compact_json(c.get('arguments', {}))}" for c in message.get("tool_calls") or ()]
        return "\n".join(parts) or "[assistant]\n(empty reply)"
    return f"[{role}]\n{text}"


def transcript(older: Sequence[Message], counter: TokenCounter, budget_tokens: int) -> str:
    """The older messages as text that fits `budget_tokens`: earlier summaries first, then the
    newest entries that fit, in their order, behind a line counting the ones left out."""
    entries = [render(m) for m in older]
    costs = [counter.count(e) for e in entries]
    pinned = [i for i, m in enumerate(older) if is_summary(m)]
    room = budget_tokens - sum(costs[i] for i in pinned)
    kept: list[int] = []
    for i in reversed(range(len(entries))):
        if i in pinned:
            continue
        if costs[i] > room:
            break  # keep a contiguous recent stretch: a gap in the middle would mislead
        kept.append(i)
        room -= costs[i]
    left_out = len(entries) - len(pinned) - len(kept)
    lines = [entries[i] for i in pinned]
    if left_out:
        lines.append(f"[… {left_out} earlier message{'s' if left_out != 1 else ''} left out: they did not fit the summariser's window …]")
    lines += [entries[i] for i in sorted(kept)]
    return "\n\n".join(lines)


def summary_request(older: Sequence[Message], counter: TokenCounter, budget_tokens: int) -> ModelRequest:
    """The one request that asks the model for a summary of `older`, within `budget_tokens`."""
    frame = counter.count(SUMMARIZER_SYSTEM) + counter.count(SUMMARY_INSTRUCTIONS) + 64
    text = transcript(older, counter, max(budget_tokens - frame, 0))
    prompt = f"<conversation>\n{text}\n</conversation>\n\n{SUMMARY_INSTRUCTIONS}"
    return ModelRequest(SystemParts(SUMMARIZER_SYSTEM), [user(prompt)], [])


def host_summary(older: Sequence[Message]) -> str:
    """A summary written without a model: what was asked, called, returned and answered, one
    line each, the newest kept when they do not all fit."""
    carried: list[str] = []
    lines: list[str] = []
    for message in older:
        role, text = message.get("role"), str(message.get("content") or "")
        if is_summary(message):
            carried.append("Summary of the conversation before this:\n" + _one_line(clean(text), HOST_CARRIED_SUMMARY_CHARS))
        elif role == "user":
            lines.append(f"- The user wrote: {_one_line(text, HOST_LINE_CHARS)}")
        elif role == "assistant":
            if text.strip():
                lines.append(f"- The assistant wrote: {_one_line(text, HOST_LINE_CHARS)}")
            for c in message.get("tool_calls") or ():
                lines.append(f"- The assistant called {c.get('name')} {_one_line(_compact_json(c.get('arguments', {})), 160)}")
        elif role == "tool":
            verb = "failed" if message.get("is_error") else "returned"
            lines.append(f"- {message.get('name') or 'The tool'} {verb}: {_one_line(text, HOST_LINE_CHARS)}")
    head = ["The host listed the earlier messages itself (no model summary was available): what was asked, called, returned and answered, oldest first."]
    # Room for the line that counts what was left out, should anything be.
    room = HOST_SUMMARY_CHARS - sum(len(x) + 1 for x in head + carried) - 48
    kept: list[str] = []
    for line in reversed(lines):
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    left_out = len(lines) - len(kept)
    note = [f"- ({left_out} earlier entr{'ies' if left_out != 1 else 'y'} left out)"] if left_out else []
    return "\n".join(head + carried + note + kept[::-1])


@dataclass
class Summarizer:
    """Compacts one session: asks `provider` for the summary, falls back to `host_summary`,
    rewrites the session and records the call.

    Attributes:
        provider: the session's own model (the summary is one more call to it).
        session: the conversation to compact.
        trajectory: where the summary request and its usage are recorded.
        counter: counts the transcript against the window.
    """

    provider: Provider
    session: Session
    trajectory: Trajectory
    counter: TokenCounter

    async def compact(self, turn: int, step: int, config: CompactionConfig) -> dict[str, Any] | None:
        """Replace the older messages with a summary, in the session and on disk; what was done,
        or None when there is nothing older to summarise (the recent messages alone are that
        large, and compaction keeps them verbatim)."""
        if not compactable(self.session.messages, config.keep_recent):
            return None
        older, recent = split(self.session.messages, config.keep_recent)
        request = summary_request(older, self.counter, config.threshold or 0)
        payload = self.provider.payload(request)
        self.trajectory.emit(
            "context.compiled",
            {"turn": turn, "step": step, "purpose": COMPACTION, "provider": self.provider.name, "model": self.provider.model, **wire_parts(payload, request)},
        )
        text, error, call = "", None, None
        try:
            result = await self.provider.complete(request)
        except ProviderError as exc:
            error = str(exc)[:500]
        else:
            call = self.session.record_usage(result.usage, 0, COMPACTION).call
            self.trajectory.emit(
                "model.completed",
                {"turn": turn, "call": call, "purpose": COMPACTION, "usage": result.usage.to_dict(), "tokens": result.usage.request_tokens(),
                 "stop_reason": result.stop_reason, "tool_calls": [], "problem": None},
            )
            text = clean(result.text)
            if not text:
                error = "the model's summary was empty"
        # The model could not be asked, or said nothing: the host lists what happened instead, so
        # that the request still shrinks and nothing older goes without a trace.
        summary = continuation(host_summary(older) if error else text)
        self.session.compact(summary, len(older))
        return {
            "summarised": len(older),
            "kept": len(recent),
            "summary_source": "host" if error else "model",
            "summary_call": call,
            "error": error,
            "summary_chars": len(summary["content"]),
        }

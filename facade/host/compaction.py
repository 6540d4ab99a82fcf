"""Compaction: when a session outgrows its window, the older part becomes one summary.

`compact(messages, summarize, keep_recent=4)` keeps the 4 most recent messages verbatim and hands
the rest to `summarize` (a model, in the host; any callable in tests), whose text comes back as one
system message inside `<summary>` tags. The cut never falls inside a tool exchange: when the 4th
message from the end is a tool result, its call (and the call's other results) stay verbatim too,
so more than 4 may be kept, never fewer. The continuation tells the model the session goes on from
an earlier conversation, that the latest messages follow verbatim, and that it must not recap but
go on — a model told nothing greets the user again or re-summarises what it just read.

Compacting a compacted session folds the old summary into the new one: it is simply among the
older messages `summarize` reads.

When: `CompactionConfig.due(prompt_tokens)` — the loop measures each request it is about to send
(system prompt, tools and the history the context manager compiled) and compacts when that passes
`compact_at` of the model's window; and at once, whatever the threshold, when the server refuses a
request as too long (facade.host.overflow). Who writes the summary: `facade.host.summarizer`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from facade.host.exchanges import safe_start

Message = dict[str, Any]
Summarize = Callable[[list[Message]], str]
SummarizeAsync = Callable[[list[Message]], Awaitable[str]]

KEEP_RECENT = 4
# Compact when the request reaches 80% of the window. The other 20% is the reply's room (a
# 4,096-token cap is 12.5% of a 32k window) plus the host's counting error: chat-template tokens
# are an allowance, not a count, and a model with no bundled tokenizer (Gemma) is estimated.
# Compacting late is a failed request; compacting early only summarises a little sooner.
COMPACT_AT = 0.8

PREAMBLE = (
    "This session continues from an earlier conversation that ran out of context. "
    "The summary below covers the earlier part of it."
)
CONTINUE = (
    "The most recent messages follow verbatim after this summary. Continue from where the "
    "conversation left off: do not recap this summary or acknowledge it, and do not start over — "
    "go straight on with the current task."
)

# What a model-backed `summarize` should be asked for. Specific beats short: the summary is all
# that remains of those turns.
SUMMARY_INSTRUCTIONS = (
    "Summarise the conversation above for your own continuation of it. Keep: what the user asked "
    "for and why; decisions taken; every fact stated (names, numbers, ids, paths, dates) verbatim; "
    "the tools called and what they returned; what is done, what is pending, and the next step. "
    "Write plain text, no preamble."
)

_TAG = re.compile(r"</?summary>", re.IGNORECASE)
_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.IGNORECASE | re.DOTALL)
_INNER = re.compile(r"<summary>(.*?)</summary>", re.IGNORECASE | re.DOTALL)


class CompactionError(ValueError):
    """The summary came back empty; compacting would lose the earlier conversation."""


@dataclass(frozen=True)
class CompactionConfig:
    """When the loop compacts, and what it keeps verbatim.

    Attributes:
        context_window: the model's window in tokens (agent.toml `context_window`); None when
            unknown, and then the loop never compacts — a threshold of an invented window would
            be a guess presented as a rule. The context manager still fits the history to its
            budget.
        compact_at: the share of the window a request may fill before the loop compacts.
        keep_recent: messages kept verbatim (more when a tool exchange straddles the cut).
    """

    context_window: int | None = None
    compact_at: float = COMPACT_AT
    keep_recent: int = KEEP_RECENT

    def __post_init__(self) -> None:
        if self.context_window is not None and self.context_window <= 0:
            raise ValueError(f"the context window must be a positive number of tokens, not {self.context_window}")
        if not 0 < self.compact_at <= 1:
            raise ValueError(f"compact_at is a share of the window between 0 and 1 (e.g. 0.8), not {self.compact_at}")
        if self.keep_recent < 0:
            raise ValueError(f"keep_recent must be 0 or more, not {self.keep_recent}")

    @property
    def threshold(self) -> int | None:
        """The request size, in tokens, past which the loop compacts (None: never)."""
        return None if self.context_window is None else int(self.context_window * self.compact_at)

    def due(self, prompt_tokens: int) -> bool:
        return self.threshold is not None and prompt_tokens > self.threshold


# What `Relief.verdict` says of a request over the threshold.
COMPACT = "compact"
FIXED_OVER = "the system prompt and tools alone pass the threshold"
FUTILE = "a summary would cost as much as what it replaces"


@dataclass
class Relief:
    """Whether compacting can bring a request over the threshold back under it (issue 19, item 4:
    a window whose system prompt and tools alone passed the threshold was compacted on every step,
    and the first summary made the prompt larger).

    Attributes:
        summary_tokens: what the last summary cost, once one was written: compacting is futile
            while the part of the history it would replace costs no more than that.
    """

    summary_tokens: int | None = None

    def verdict(self, threshold: int, prompt_tokens: int, history_tokens: int, replaceable_tokens: int) -> str:
        """`COMPACT`, `FIXED_OVER` (only fewer tools or a shorter prompt can help) or `FUTILE`.
        `replaceable_tokens`: what the compiled history spends on messages a compaction replaces."""
        if prompt_tokens - history_tokens > threshold:
            return FIXED_OVER
        if self.summary_tokens is not None and replaceable_tokens <= self.summary_tokens:
            return FUTILE
        return COMPACT


def over_window_note(fixed: int, config: CompactionConfig, shed: bool, deferring: bool) -> str:
    """The one line the person is shown when the system prompt and tools alone do not fit."""
    fewer = "; it now offers the model only the tools it starts with" if shed else ""
    search = "" if deferring else ' (or disclosure = "search" in agent.toml)'
    return (
        f"note: the system prompt and tools alone take {fixed:,} tokens, more than the {config.threshold or 0:,} at which the host "
        f"compacts ({config.compact_at:.0%} of a {config.context_window or 0:,}-token window), so compacting cannot help and the "
        f"host will not try{fewer}. Use a larger window or give the agent fewer apps{search}."
    )


def split(messages: Sequence[Mapping[str, Any]], keep_recent: int = KEEP_RECENT) -> tuple[list[Message], list[Message]]:
    """(older, recent): `recent` holds at least the last `keep_recent` messages, and more when
    needed so that no tool call is separated from its results."""
    if keep_recent < 0:
        raise ValueError(f"keep_recent must be 0 or more, not {keep_recent}")
    cut = safe_start(messages, len(messages) - keep_recent)
    return [dict(m) for m in messages[:cut]], [dict(m) for m in messages[cut:]]


def compactable(messages: Sequence[Mapping[str, Any]], keep_recent: int = KEEP_RECENT) -> bool:
    """Whether compacting would shrink anything: something older than the recent messages that
    is not already a summary."""
    older, _ = split(messages, keep_recent)
    return not all(is_summary(m) for m in older)


def compact(messages: Sequence[Mapping[str, Any]], summarize: Summarize, keep_recent: int = KEEP_RECENT) -> list[Message]:
    """The summary as one system message, then the recent messages verbatim. A history with
    nothing older than the recent messages comes back unchanged, and `summarize` is not called."""
    older, recent = split(messages, keep_recent)
    if not older:
        return recent
    return [continuation(summarize(older))] + recent


async def acompact(
    messages: Sequence[Mapping[str, Any]], summarize: SummarizeAsync, keep_recent: int = KEEP_RECENT
) -> list[Message]:
    """`compact` for a summariser that must be awaited (a model call in the async loop)."""
    older, recent = split(messages, keep_recent)
    if not older:
        return recent
    return [continuation(await summarize(older))] + recent


def continuation(summary: str) -> Message:
    """The system message that replaces the older messages."""
    text = clean(summary)
    if not text:
        raise CompactionError(
            "the summariser returned no text, so compacting would erase the earlier conversation; "
            "keep the history as it is and retry, or summarise with a model that answers"
        )
    return {"role": "system", "content": f"{PREAMBLE}\n\n<summary>\n{text}\n</summary>\n\n{CONTINUE}"}


def clean(summary: str) -> str:
    """The summary's text alone: a model that wrapped it in `<summary>` tags is unwrapped, an
    `<analysis>` scratchpad before it is dropped, and stray tags are removed so that the message
    holds exactly one `<summary>` block."""
    text = _ANALYSIS.sub("", summary or "")
    inner = _INNER.search(text)
    if inner:
        text = inner.group(1)
    return _TAG.sub("", text).strip()


def is_summary(message: Mapping[str, Any]) -> bool:
    """Whether a message is a compaction summary (the context manager never drops one)."""
    content = message.get("content")
    return message.get("role") == "system" and isinstance(content, str) and content.startswith(PREAMBLE)

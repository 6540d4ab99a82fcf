"""Token usage: input, output, cache-write and cache-read kept apart, per model call, per turn
and for the whole session.

They are priced differently (a cache read costs ~10% of fresh input, a write ~125%) and they
answer different questions, so they are never summed into one "tokens" figure. A tool turn costs
two model calls or more — the call that asked for the tool and the one that answered from its
result, each prefilling the whole prompt — and the ledger shows each call, not only the sum. A
call that summarised the conversation for compaction is a model call like any other, counted and
shown as what it was; so is a call the server refused as too long for its window, which reports
no tokens (the APIs bill none for it) but was a request the turn made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

TURN = "turn"
COMPACTION = "compaction"

@dataclass(frozen=True)
class Usage:
    """Tokens of one or more model calls, as the provider reported them.

    Attributes:
        input_tokens: prompt tokens processed fresh: neither written to nor read from a cache.
        output_tokens: tokens the model generated.
        cache_write_tokens: prompt tokens written to the provider's prompt cache (Anthropic's
            `cache_creation_input_tokens`; OpenAI-compatible servers report none).
        cache_read_tokens: prompt tokens served from the cache (Anthropic's
            `cache_read_input_tokens`, OpenAI's `prompt_tokens_details.cached_tokens`,
            llama.cpp's `timings.cache_n`).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
        )

    @property
    def prompt_tokens(self) -> int:
        """Every prompt token, however it was billed: what the model actually read."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    def request_tokens(self) -> dict[str, int]:
        """One request as a run's table reads it: every prompt token, those the server read from
        its cache, those it prefilled (processed fresh or written to the cache), and the
        completion. On the second request of a tool turn, `prefilled / prompt` is the share the
        prefix cache did not save."""
        return {
            "prompt": self.prompt_tokens,
            "cached": self.cache_read_tokens,
            "prefilled": self.input_tokens + self.cache_write_tokens,
            "completion": self.output_tokens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(**{k: int(data.get(k) or 0) for k in ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")})

    def describe(self) -> str:
        return (
            f"in {self.input_tokens:,} · cache write {self.cache_write_tokens:,} · "
            f"cache read {self.cache_read_tokens:,} · out {self.output_tokens:,}"
        )


@dataclass(frozen=True)
class ModelCall:
    """One model call of a session.

    Attributes:
        turn: the user turn it served (1 for the first user message).
        call: its position within that turn (1, 2, …).
        usage: what it cost.
        tool_calls: how many tools it asked for (0 for the call that answered).
        purpose: `turn` (the conversation itself) or `compaction` (it summarised the older
            messages).
        refused: the server refused the prompt as longer than its window; no tokens reported.
        cut_off: the reply stopped at the token cap (its output tokens are the cap).
    """

    turn: int
    call: int
    usage: Usage
    tool_calls: int = 0
    purpose: str = TURN
    refused: bool = False
    cut_off: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "call": self.call,
            "usage": self.usage.to_dict(),
            "tool_calls": self.tool_calls,
            "purpose": self.purpose,
            "refused": self.refused,
            "cut_off": self.cut_off,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelCall:
        # Sessions written before compaction existed carry no purpose: all their calls were turns;
        # before refusals were counted, every call recorded had been answered.
        return cls(
            int(data["turn"]),
            int(data["call"]),
            Usage.from_dict(data["usage"]),
            int(data.get("tool_calls", 0)),
            str(data.get("purpose") or TURN),
            bool(data.get("refused", False)),
            bool(data.get("cut_off", False)),
        )

    def describe(self) -> str:
        if self.refused:
            return "refused: the prompt was longer than the server's window"
        if self.purpose == COMPACTION:
            return "summarised the earlier conversation"
        if self.cut_off:
            return f"cut off at the token cap ({self.usage.output_tokens:,} tokens)"
        if self.tool_calls:
            return f"asked for {self.tool_calls} tool call{'s' if self.tool_calls != 1 else ''}"
        return "answered"


@dataclass
class UsageLedger:
    """Every model call of a session, in order; the latest turn and the cumulative total are
    derived from it, so a ledger rebuilt from the persisted calls is the same ledger."""

    calls: list[ModelCall] = field(default_factory=list)

    @classmethod
    def rebuild(cls, calls: Iterable[ModelCall]) -> UsageLedger:
        return cls(list(calls))

    def record(self, turn: int, usage: Usage, tool_calls: int = 0, purpose: str = TURN, refused: bool = False, cut_off: bool = False) -> ModelCall:
        number = 1 + sum(1 for c in self.calls if c.turn == turn)
        entry = ModelCall(turn, number, usage, tool_calls, purpose, refused, cut_off)
        self.calls.append(entry)
        return entry

    @property
    def latest_turn(self) -> list[ModelCall]:
        if not self.calls:
            return []
        last = self.calls[-1].turn
        return [c for c in self.calls if c.turn == last]

    @property
    def latest(self) -> Usage:
        return sum((c.usage for c in self.latest_turn), Usage())

    @property
    def cumulative(self) -> Usage:
        return sum((c.usage for c in self.calls), Usage())

    def describe(self) -> str:
        """The latest turn call by call, then the session total: a tool turn shows as the two
        (or more) model calls it was."""
        turn = self.latest_turn
        if not turn:
            return "usage: no model call yet"
        lines = [f"turn {turn[0].turn}: {len(turn)} model call{'s' if len(turn) != 1 else ''}"]
        for c in turn:
            lines.append(f"  call {c.call} ({c.describe()}): {c.usage.describe()}")
        if len(turn) > 1:
            lines.append(f"  turn total: {self.latest.describe()}")
        lines.append(f"session ({len(self.calls)} calls): {self.cumulative.describe()}")
        return "\n".join(lines)

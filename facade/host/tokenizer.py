"""What a message costs in the model's context, for the history budget: exact and offline where a
bundled tokenizer exists, a labelled overcount where none does (Gemma, for one).

The token facts themselves (the bundled tokenizers, the exact counter, the measured ratios) live
once in `facade/tokencount.py`, shared with the server's budget.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from facade.tokencount import BOUND_CHARS_PER_TOKEN, BUNDLED, Source, encoding, upper_bound

# Chat formats wrap every message in role and separator tokens: OpenAI documents 3 per message
# for its models, ChatML templates (Qwen) spend 4–5. 4 keeps a 5,000-token budget honest to within
# ~1% on a 100-message history.
MESSAGE_OVERHEAD = 4


@dataclass
class TokenCounter:
    """Counts what a message costs in the model's context.

    Attributes:
        encoding: a bundled encoding (`o200k_base`, `cl100k_base`, `llama3`, `qwen3`), or `None`
            to estimate by characters, on the side of overcounting (the budget must hold).
        source: `"measured"` when a real tokenizer counts, `"estimate"` when the ratio does.
    """

    encoding: str | None = "o200k_base"
    source: Source = field(init=False)

    def __post_init__(self) -> None:
        if self.encoding is not None and self.encoding not in BUNDLED:
            raise ValueError(
                f"no offline tokenizer named {self.encoding!r}; use one of {', '.join(BUNDLED)}, "
                "or encoding=None for a labelled estimate"
            )
        self._tokenizer = encoding(self.encoding) if self.encoding else None
        self.source = "measured" if self._tokenizer else "estimate"

    @property
    def name(self) -> str:
        return self.encoding or f"estimate ({BOUND_CHARS_PER_TOKEN} chars/token)"

    def count(self, text: str) -> int:
        if self._tokenizer is None:
            return upper_bound(text)
        return int(self._tokenizer.count(text))

    def message(self, message: Mapping[str, Any]) -> int:
        """A message's content, its tool calls (as the compact JSON a provider sends) and the
        per-message framing."""
        total = MESSAGE_OVERHEAD + self.count(str(message.get("content") or ""))
        if message.get("tool_calls"):
            total += self.count(json.dumps(message["tool_calls"], separators=(",", ":"), ensure_ascii=False))
        return total

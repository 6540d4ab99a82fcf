"""Token counts for the context budget: exact and offline where a bundled tokenizer exists,
a labelled estimate where none does.

`quicktok` bundles `o200k_base`, `cl100k_base`, `llama3` and `qwen3` and needs no network (tiktoken
downloads its files at first use and fails here). A model with no bundled tokenizer (Gemma, for
one) is counted by characters, and `source` says `"estimate"` so nobody mistakes it for a count.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import quicktok

# Chat formats wrap every message in role and separator tokens: OpenAI documents 3 per message
# for its models, ChatML templates (Qwen) spend 4–5. 4 keeps a 5,000-token budget honest to within
# ~1% on a 100-message history.
MESSAGE_OVERHEAD = 4

# Characters per token when no tokenizer is bundled: 3.5 sits under every measured ratio for text
# (prose 4.8, compact JSON 4.6, indented JSON 4.0; DESIGN, 2026-11), so the estimate overcounts
# and the budget holds. Number- and uuid-heavy data (1.4–1.9) is the exception it cannot cover.
ESTIMATE_CHARS_PER_TOKEN = 3.5

BUNDLED = ("o200k_base", "cl100k_base", "llama3", "qwen3")


@dataclass
class TokenCounter:
    """Counts what a message costs in the model's context.

    Attributes:
        encoding: a quicktok encoding (`o200k_base`, `cl100k_base`, `llama3`, `qwen3`), or `None`
            to estimate by characters.
        source: `"measured"` when a real tokenizer counts, `"estimate"` when the ratio does.
    """

    encoding: str | None = "o200k_base"
    source: Literal["measured", "estimate"] = field(init=False)

    def __post_init__(self) -> None:
        if self.encoding is not None and self.encoding not in BUNDLED:
            raise ValueError(
                f"no offline tokenizer named {self.encoding!r}; use one of {', '.join(BUNDLED)}, "
                "or encoding=None for a labelled estimate"
            )
        self._tokenizer = quicktok.get_encoding(self.encoding) if self.encoding else None
        self.source = "measured" if self._tokenizer else "estimate"

    @property
    def name(self) -> str:
        return self.encoding or f"estimate ({ESTIMATE_CHARS_PER_TOKEN} chars/token)"

    def count(self, text: str) -> int:
        if self._tokenizer is None:
            return math.ceil(len(text) / ESTIMATE_CHARS_PER_TOKEN)
        return int(self._tokenizer.count(text))

    def message(self, message: Mapping[str, Any]) -> int:
        """A message's content, its tool calls (as the compact JSON a provider sends) and the
        per-message framing."""
        total = MESSAGE_OVERHEAD + self.count(str(message.get("content") or ""))
        if message.get("tool_calls"):
            total += self.count(json.dumps(message["tool_calls"], separators=(",", ":"), ensure_ascii=False))
        return total

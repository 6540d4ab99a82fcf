"""Counting tokens: exact with a bundled offline tokenizer where one fits, else an estimate
that says it is one."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

Source = Literal["measured", "estimate"]
# quicktok bundles these and gives ids identical to tiktoken's (shared/MCP-NOTES.md); tiktoken
# itself downloads its files at first use and fails offline.
BUNDLED = ("o200k_base", "cl100k_base", "llama3", "qwen3")
DEFAULT_TOKENIZER = "o200k_base"
ALIASES = {"o200k": "o200k_base", "cl100k": "cl100k_base", "llama-3": "llama3", "qwen": "qwen3", "qwen3.5": "qwen3"}


@dataclass(frozen=True, slots=True)
class TokenCount:
    tokens: int
    source: Source
    tokenizer: str


def bundled_name(tokenizer: str | None) -> str | None:
    """The bundled encoding for a tokenizer name, or None when none is loadable here."""
    if not tokenizer:
        return None
    name = ALIASES.get(tokenizer.lower(), tokenizer.lower())
    return name if name in BUNDLED and _encoding(name) is not None else None


@functools.cache
def _encoding(name: str) -> Any:
    try:
        import quicktok

        return quicktok.get_encoding(name)
    except Exception:  # a missing or broken tokenizer degrades to an estimate, never an error
        return None


def count_exact(text: str, tokenizer: str = DEFAULT_TOKENIZER) -> int:
    encoding = _encoding(bundled_name(tokenizer) or DEFAULT_TOKENIZER)
    if encoding is None:
        raise RuntimeError(f"no bundled tokenizer {tokenizer!r} could be loaded (is quicktok-v1 installed?)")
    return len(encoding.encode(text))


# Calibrated on this project's own text, 2026-11-30, against the bundled tokenizers (chars per
# token — o200k / cl100k / qwen3 / llama3): the served catalogue's compact JSON schemas
# 4.29 / 4.46 / 4.39 / 4.46; the agents' workspace prose (SYSTEM.md, TOOLS.md) 4.06 / 4.04 /
# 3.96 / 4.04. The folk figures (4 for prose, 1.3 for JSON) overcount JSON by ~3.3x;
# `scripts/bench_budget.py` measures the error of these constants against exact counts.
JSON_CHARS_PER_TOKEN = 4.35
PROSE_CHARS_PER_TOKEN = 4.0
Kind = Literal["json", "prose"]


def count(text: str, tokenizer: str | None, kind: Kind) -> TokenCount:
    """Exact when the tokenizer is bundled here, else a calibrated estimate, labelled as such."""
    name = bundled_name(tokenizer)
    if name is not None:
        return TokenCount(count_exact(text, name), "measured", name)
    ratio = JSON_CHARS_PER_TOKEN if kind == "json" else PROSE_CHARS_PER_TOKEN
    return TokenCount(round(len(text) / ratio), "estimate", f"{ratio} chars/token ({kind})")

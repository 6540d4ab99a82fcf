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

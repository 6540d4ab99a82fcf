"""Token facts, kept once for the server's reports and for the host: which offline tokenizers are
bundled, the exact counter, and the measured characters-per-token ratios an estimate uses where
no tokenizer fits (Gemma, for one), labelled `"estimate"` so nobody mistakes it for a count.

A leaf: it imports nothing of facade, so that `facade/host` (which imports nothing of the server)
and `facade/reports` both stand on it (tests/test_layout.py holds that wall).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Source = Literal["measured", "estimate"]
Kind = Literal["json", "prose"]

# quicktok bundles these and gives ids identical to tiktoken's (shared/MCP-NOTES.md); tiktoken
# itself downloads its files at first use and fails offline.
BUNDLED = ("o200k_base", "cl100k_base", "llama3", "qwen3")
DEFAULT_TOKENIZER = "o200k_base"
ALIASES = {"o200k": "o200k_base", "cl100k": "cl100k_base", "llama-3": "llama3", "qwen": "qwen3", "qwen3.5": "qwen3"}

# Characters per token, measured on this project's own text with `python scripts/bench_budget.py`
# (2026-11-30, re-measured unchanged 2026-12-01) against every bundled tokenizer — o200k /
# cl100k / llama3 / qwen3: the whole served catalogue as `tools/list` sends it (the 2026-07-28
# wire form, compact JSON, 165,404 characters) 4.29 / 4.46 / 4.46 / 4.39; the demo agents'
# workspace prose (SYSTEM.md and rendered TOOLS.md, 6,981 characters) 4.06 / 4.04 / 4.04 / 3.96.
# One ratio per kind, within 2.6% of every exact count. (The 4.8 / 4.6 once cited from a generic
# corpus do not hold on this text; the folk 1.3 for JSON overcounts ~3.3x.)
CHARS_PER_TOKEN: dict[Kind, float] = {"json": 4.35, "prose": 4.0}

# A count that must never undercount (the host's history budget, which must hold) divides by
# less than the lowest measured ratio: 3.5 sits 12% under qwen3's prose 3.96, so the estimate
# overcounts and the budget holds. Number- and uuid-heavy data (1.4-1.9, MCP-NOTES) is the
# exception no ratio covers.
BOUND_CHARS_PER_TOKEN = 3.5


@dataclass(frozen=True, slots=True)
class TokenCount:
    """A count and how it was had: `tokenizer` is the bundled encoding, or the ratio used."""

    tokens: int
    source: Source
    tokenizer: str


@functools.cache
def _load(name: str) -> Any:
    try:
        import quicktok

        return quicktok.get_encoding(name)
    except Exception:  # a missing or broken tokenizer degrades to an estimate, never a crash
        return None


def bundled_name(tokenizer: str | None) -> str | None:
    """The bundled encoding for a tokenizer name (aliases accepted), or None when none is
    loadable here."""
    if not tokenizer:
        return None
    name = ALIASES.get(tokenizer.lower(), tokenizer.lower())
    return name if name in BUNDLED and _load(name) is not None else None


def encoding(name: str) -> Any:
    """The bundled quicktok encoding `name`; an error naming the fix when it cannot load."""
    resolved = bundled_name(name)
    if resolved is None:
        raise RuntimeError(f"no bundled tokenizer {name!r} could be loaded (is quicktok-v1 installed?)")
    return _load(resolved)


def count_exact(text: str, tokenizer: str = DEFAULT_TOKENIZER) -> int:
    """Tokens of `text` as ordinary text (a `<|endoftext|>` in it is text, not a special)."""
    return int(encoding(tokenizer).count(text))


def estimate(text: str, kind: Kind) -> int:
    return round(len(text) / CHARS_PER_TOKEN[kind])


def upper_bound(text: str) -> int:
    return math.ceil(len(text) / BOUND_CHARS_PER_TOKEN)


def count(text: str, tokenizer: str | None, kind: Kind) -> TokenCount:
    """Exact when the tokenizer is bundled here, else the measured ratio's estimate, labelled."""
    name = bundled_name(tokenizer)
    if name is not None:
        return TokenCount(count_exact(text, name), "measured", name)
    return TokenCount(estimate(text, kind), "estimate", _ratio_label(kind))


def count_parts(parts: Sequence[str], tokenizer: str | None, kind: Kind) -> tuple[TokenCount, list[int]]:
    """The count of the concatenation of `parts`, and how many of its tokens fall to each part,
    summing exactly to it: a token belongs to the part its first byte is in (counting each part
    apart would count the tokens that merge across a boundary twice or not at all). An estimate
    is split the same way, by rounding at each part's cumulative end."""
    whole = "".join(parts)
    name = bundled_name(tokenizer)
    if name is None:
        ends = list(itertools.accumulate(len(p) for p in parts))
        cuts = [0, *(round(end / CHARS_PER_TOKEN[kind]) for end in ends)]
        return TokenCount(cuts[-1], "estimate", _ratio_label(kind)), [b - a for a, b in zip(cuts, cuts[1:])]
    enc = encoding(name)
    ends = list(itertools.accumulate(len(p.encode("utf-8")) for p in parts))
    shares = [0] * len(parts)
    part = position = 0
    ids = enc.encode_ordinary(whole)
    for token in ids:
        while part < len(ends) - 1 and position >= ends[part]:
            part += 1
        shares[part] += 1
        position += len(enc.decode_single_token_bytes(token))
    return TokenCount(len(ids), "measured", name), shares


def _ratio_label(kind: Kind) -> str:
    return f"{CHARS_PER_TOKEN[kind]} chars/token ({kind})"

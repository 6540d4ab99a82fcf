"""Recognising a model server's "the prompt is too long", and reading what it says of its window.

Each API says it its own way (recorded in tests/host/wire/):
- OpenAI: HTTP 400, `error.code` `context_length_exceeded`, "This model's maximum context length
  is 128000 tokens. However, your messages resulted in 131072 tokens (…)";
- the llama.cpp server: HTTP 400, `error.type` `exceed_context_size_error`, "request (13392 tokens)
  exceeds the available context size (8192 tokens)", with the two numbers as fields too
  (`n_prompt_tokens`, and `n_ctx`: the context of the slot that took the request — with
  `--parallel N` that is a share of `-c`, and it is what a request really gets);
- Anthropic: HTTP 400, "prompt is too long: 208310 tokens > 200000 maximum".

This module is the one place that knows those words: `http_failure` asks it and sets
`ProviderError.kind`, and the loop reads only that. A server whose refusal carries none of these
markers is not recognised — its error reaches the person as it is — until a recording of it joins
the ones above.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# 413: a proxy in front of the server may refuse the body as too large, in the same words.
STATUSES = (400, 413)
MARKERS = ("context_length_exceeded", "exceed_context_size_error", "prompt is too long")
_WINDOW = (
    re.compile(r"maximum context length is (\d+) tokens"),
    re.compile(r"available context size \((\d+) tokens\)"),
    re.compile(r"tokens > (\d+) maximum"),
)
_PROMPT = (
    re.compile(r"resulted in (\d+) tokens"),
    re.compile(r"request \((\d+) tokens\)"),
    re.compile(r"prompt is too long: (\d+) tokens"),
)


@dataclass(frozen=True)
class Overflow:
    """A refusal of a prompt longer than the server's window.

    Attributes:
        window: the context size the server said it runs, in its own tokens (None: not said).
        prompt_tokens: the refused prompt as the server counted it (None: not said).
    """

    window: int | None = None
    prompt_tokens: int | None = None


def overflow(status: int, body: str) -> Overflow | None:
    """The overflow an HTTP error reports, or None when the error is of another kind."""
    if status not in STATUSES or not any(marker in body for marker in MARKERS):
        return None
    error = _error(body)
    message = error.get("message") if isinstance(error.get("message"), str) else body
    return Overflow(
        window=_count(error.get("n_ctx")) or _first(_WINDOW, message),
        prompt_tokens=_count(error.get("n_prompt_tokens")) or _first(_PROMPT, message),
    )


def _error(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return _count(int(found.group(1)))
    return None

"""Tool names across the provider boundary: `domain.action` ↔ a name OpenAI and Anthropic accept.

Both APIs take tool names matching `^[a-zA-Z0-9_-]{1,64}$`: no `.`. Facade names match
`[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*` (DESIGN, "Capabilities are data"), so they never hold a `-`,
and swapping the one `.` for a `-` is a bijection on that set — the same character the
deny-list's runtime mangling uses, so a name reads the same in both places. This is the ONE
mapping; every adapter calls these two functions.
"""

from __future__ import annotations

import re

FACADE_NAME = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")
PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_]*-[a-z][a-z0-9_]*$")
MAX_PROVIDER_NAME = 64


class ToolNameError(ValueError):
    """A name that cannot cross the provider boundary."""


def to_provider(name: str) -> str:
    """`finance.invoice_create` → `finance-invoice_create`."""
    if not FACADE_NAME.match(name):
        raise ToolNameError(f"{name!r} is not a facade tool name (domain.action, lowercase, [a-z0-9_])")
    safe = name.replace(".", "-")
    if len(safe) > MAX_PROVIDER_NAME:
        raise ToolNameError(f"{name!r} is {len(safe)} characters; providers accept at most {MAX_PROVIDER_NAME}")
    return safe


def from_provider(safe: str) -> str:
    """`finance-invoice_create` → `finance.invoice_create`. A name the model wrote already dotted
    comes back unchanged; anything else is returned as written, for the caller to refuse with the
    list of real names (a model that invents a tool should hear which ones exist)."""
    if PROVIDER_NAME.match(safe):
        return safe.replace("-", ".")
    return safe

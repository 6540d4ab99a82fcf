"""Progressive disclosure, the host's half: which of the listed tools the model is given.

The server lists an agent's whole view and marks, in each tool's `_meta`, the ones a deferring
host should leave out until the model finds them (`disclosure = "search"` in agent.toml, see
facade/catalogue/disclosure.py); `tools/list` itself never changes because of a search. This
host gives the model the tools not marked deferred, then each deferred tool once it is wanted:
found by `skills.tool_search` or `skills.tool_describe`, called by its name, or matched to the
user's request before the turn's first model call (prompt routing, `preload`). A wanted tool is
appended when it is first listed — at once for a tool callable now, after the elevation for one
that needs an approved card — so the tool array only grows at its end and the prompt's prefix
stays byte-identical, which keeps a runtime's prompt (KV) cache hitting.

Nothing here grants anything: the server still runs a tool only if the caller's view allows it.
With `enabled` off the host sends every listed tool, which is what a client that does not defer
sees (the documented fallback).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from facade.host.messages import ToolSpec

DEFERRED_META_KEY = "facade/deferred"
SEARCH_TOOL = "skills.tool_search"
DESCRIBE_TOOL = "skills.tool_describe"
# The search tool's own bound on a query (domains/skills/discovery.py): a longer prompt is cut.
QUERY_CHARS = 200


class Disclosure:
    """The deferred tools one conversation has loaded, in the order they arrived.

    Attributes:
        enabled: honour the server's deferred marks (False sends every listed tool).
        preload: how many tools callable now to load for each user request before its first
            model call, ranked by the server's own search for the request's words (0: none).
        loaded: the deferred tools appended to the model's array, in order.
    """

    def __init__(self, *, enabled: bool = True, preload: int = 3) -> None:
        self.enabled = enabled
        self.preload = preload
        self.loaded: list[str] = []
        # Whether the last listing marked any tool deferred (None: none seen yet), so routing
        # costs an agent without deferred tools no extra listing.
        self.deferring: bool | None = None
        self._wanted: list[str] = []
        # Set when the prompt did not fit with the loaded tools: load no more (see shed()).
        self.capped = False

    def active(self, specs: Iterable[ToolSpec]) -> bool:
        """Whether anything is left out: the server marks deferred tools (remembered in
        `deferring`) and this host defers."""
        self.deferring = any(s.deferred for s in specs)
        return self.enabled and self.deferring

    def offered(self, specs: list[ToolSpec]) -> list[ToolSpec]:
        """The tools to give the model: the listed ones not deferred, in listing order, then the
        loaded deferred ones in the order they arrived."""
        if not self.active(specs):
            return specs
        if self.capped:
            return [s for s in specs if not s.deferred]
        listed = {s.name: s for s in specs}
        for name in self._wanted:
            if name in listed and listed[name].deferred and name not in self.loaded:
                self.loaded.append(name)
        return [s for s in specs if not s.deferred] + [listed[n] for n in self.loaded if n in listed]

    def shed(self) -> list[str]:
        """The system prompt and tools alone do not fit the window: unload the deferred tools and
        load no more for this conversation (the model can still search, and call what it finds by
        name: the server decides what runs). Returns the tools unloaded; [] when nothing is
        deferred, so nothing can go."""
        if not (self.enabled and self.deferring):
            return []
        gone, self.loaded = self.loaded, []
        self.capped, self.preload = True, 0
        return gone

    def want(self, names: Iterable[str]) -> list[str]:
        """Ask for `names` to be loaded once listed; returns the ones new to this conversation."""
        new = [n for n in names if n not in self._wanted]
        self._wanted += new
        return new

    def replay(self, messages: Iterable[dict[str, Any]]) -> list[str]:
        """Want again what a resumed session had found: the tools its searches returned and the
        ones it called, in the order they happened (offered() appends only deferred ones)."""
        names: list[str] = []
        for message in messages:
            if message.get("role") == "assistant":
                names += [c["name"] for c in message.get("tool_calls") or [] if isinstance(c.get("name"), str)]
            elif message.get("role") == "tool" and message.get("name") == SEARCH_TOOL and not message.get("is_error"):
                names += found(_json_head(str(message.get("content", ""))))
        return self.want(names)

    def observe(self, spec: ToolSpec | None, arguments: dict[str, Any], data: Any, is_error: bool) -> list[str]:
        """Learn from one tool call what the model wants: what a search found, what it asked to
        have described, or the deferred tool it called by name. Returns the newly wanted."""
        if is_error or spec is None or not self.deferring:
            return []
        name = spec.name
        if name == SEARCH_TOOL:
            return self.want(found(data))
        if name == DESCRIBE_TOOL and isinstance(arguments.get("name"), str):
            return self.want([arguments["name"]])
        return self.want([name]) if spec.deferred else []


def found(data: Any, *, callable_only: bool = False) -> list[str]:
    """The tool names of a `skills.tool_search` result, best first."""
    rows = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return []
    return [
        row["name"]
        for row in rows
        if isinstance(row, dict) and isinstance(row.get("name"), str) and (row.get("callable_now") or not callable_only)
    ]


def _json_head(text: str) -> Any:
    """The JSON a tool result starts with (the loop may append notes after a blank line)."""
    try:
        return json.JSONDecoder().raw_decode(text.lstrip())[0]
    except ValueError:
        return None


def routing_query(text: str) -> str:
    """The user's request as a search query (the search tool takes at most 200 characters)."""
    return " ".join(text.split())[:QUERY_CHARS]

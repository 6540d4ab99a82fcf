"""Deny-lists for runtimes that filter tools on their side (OpenClaw style).

One runtime connection sees the whole catalogue; the runtime hides from each agent the tools
named here. The names are spelled exactly as the runtime spells MCP tools, and the list is the
complement of the same view the facade enforces, so the two cannot disagree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Literal

from facade.catalogue.agents import Agent
from facade.errors import UsageError
from facade.kit.capability import Capability
from facade.catalogue.views import Views

Format = Literal["openclaw", "json", "lines"]
FORMATS: tuple[str, ...] = ("openclaw", "json", "lines")
DEFAULT_SERVER_NAME = "facade"
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def runtime_tool_name(server: str, tool: str) -> str:
    """`<server>__<tool>` with every character outside `[A-Za-z0-9_-]` replaced by `-`, at most
    64 characters — the runtime's own mangling, so names match character for character."""
    return _UNSAFE.sub("-", f"{server}__{tool}")[:MAX_NAME]


def runtime_names(capabilities: Iterable[Capability], server: str = DEFAULT_SERVER_NAME) -> list[str]:
    """`capabilities` as the runtime lists them: by the name `tools/list` announces (a wire name
    where one is given), mangled."""
    return [runtime_tool_name(server, c.tool_name) for c in capabilities]


def deny_names(views: Views, agent: Agent, conversation: str | None, server: str = DEFAULT_SERVER_NAME) -> list[str]:
    """Every catalogue tool outside the agent's view, as the runtime names it."""
    allowed = {c.name for c in views.view(agent, conversation)}
    return runtime_names((c for c in views.registry if c.name not in allowed), server)


def render(
    views: Views, agent: Agent, conversation: str | None, fmt: str, server: str = DEFAULT_SERVER_NAME
) -> tuple[str, Any]:
    """The deny-list in `fmt`: (text, JSON value or None for `lines`)."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")
    names = deny_names(views, agent, conversation, server)
    if fmt == "lines":
        return "\n".join(names) + ("\n" if names else ""), None
    value: dict[str, Any] = (
        {"tools": {"deny": names}}
        if fmt == "openclaw"
        else {"agent": agent.name, "conversation": conversation, "server": server, "deny": names}
    )
    return json.dumps(value, indent=2) + "\n", value

"""Progressive disclosure: which of a view's tools a model is given from the start, and which it
reaches through search — decided here and nowhere else.

An agent with `disclosure = "search"` is still *listed* its whole view: the MCP 2026-07-28 rule
is that `tools/list` never changes as a side effect of other requests, so a search must not
change it. Instead every tool outside the always-loaded set carries `_meta["facade/deferred"]`,
and a deferring host (facade/host) sends the model only the always-loaded tools, appending each
tool the model finds to its tool array for the rest of the conversation. A client that does not
defer simply sees the whole view: correct, only larger (the documented fallback).

The always-loaded set is the agent's `pinned` tools plus its skills app (search, describe,
elevate, card status): what a model needs to find, ask for and reach everything else. Nothing
here grants anything: a deferred tool runs exactly when its view allows it, as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from facade.catalogue.agents import SEARCH_APP, Agent
from facade.kit.capability import Capability

DEFERRED_META_KEY = "facade/deferred"
# What a 5,000-token model can spare for tools it always carries (issue 15): `facade check`
# fails a "search" agent whose always-loaded set is larger, counted with its tokenizer.
ALWAYS_LOADED_LIMIT = 1500


def always_loaded(agent: Agent, tools: Iterable[Capability]) -> tuple[Capability, ...]:
    """The tools of `tools` the model is given from the start: all of them, unless the agent
    discloses by search."""
    tools = tuple(tools)
    if agent.disclosure != "search":
        return tools
    pinned = set(agent.pinned)
    return tuple(c for c in tools if c.domain == SEARCH_APP or c.name in pinned)


def deferred(agent: Agent, tools: Iterable[Capability]) -> frozenset[str]:
    """The names of `tools` a deferring host leaves out until the model finds them."""
    tools = tuple(tools)
    kept = {c.name for c in always_loaded(agent, tools)}
    return frozenset(c.name for c in tools if c.name not in kept)

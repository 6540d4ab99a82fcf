"""The mode of a domain for an agent in a conversation — decided here and nowhere else.

Visibility (tools/list), enforcement (tools/call), the deny-list, TOOLS.md and the budget all
call these functions: a catalogue and a deny-list that disagree present to the model as
"the model hallucinated a tool".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from facade.catalogue.agents import Agent
from facade.kit.capability import Capability, Mode
from facade.kit.domain import Domain


class Elevated(Protocol):
    """All the mode rule needs of an elevation store (facade/access/elevation.py): which domains a
    conversation has elevated. Declared here so that the catalogue depends on no store."""

    def elevated(self, agent: str, conversation: str) -> frozenset[str]: ...


def effective_mode(agent: Agent, domain: Domain, conversation: str | None, elevations: Elevated) -> Mode:
    """A live elevation for (conversation, domain) → full; else the agent's `[apps]` setting;
    else the domain's default."""
    return effective_modes(agent, (domain,), conversation, elevations)[domain.name]


def effective_modes(
    agent: Agent, domains: Iterable[Domain], conversation: str | None, elevations: Elevated
) -> dict[str, Mode]:
    """`effective_mode` of each domain, the conversation's elevations read once: a listing of
    nine apps over Redis made nine round trips, and nine socket timeouts (4.5 s measured
    2026-11-30) when Redis stopped answering."""
    elevated = elevations.elevated(agent.name, conversation) if conversation is not None else frozenset()
    modes: dict[str, Mode] = {}
    for domain in domains:
        if domain.name in elevated:
            modes[domain.name] = "full"
        else:
            setting = agent.apps.get(domain.name, "default")
            modes[domain.name] = domain.default_mode if setting == "default" else setting
    return modes


def is_visible(agent: Agent, capability: Capability, mode: Mode) -> bool:
    """A domain outside the agent's `[apps]` is invisible; in core mode only core tools show."""
    return capability.domain in agent.apps and (capability.tier == "core" or mode == "full")

"""Views: which capabilities an agent sees and may call in a conversation.

Both questions go through `effective_mode` and `is_visible` (facade/modes.py), so what is listed
and what is enforced can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping

from facade.agents import Agent
from facade.capability import Capability, Mode
from facade.elevation import Elevations
from facade.modes import effective_mode, is_visible
from facade.registry import Registry


class Views:
    """Per-agent views over the registry; a view is cached by the modes that produced it."""

    def __init__(self, registry: Registry, agents: Mapping[str, Agent], elevations: Elevations) -> None:
        self.registry = registry
        self.agents = agents
        self.elevations = elevations
        self._cache: dict[tuple[str, tuple[tuple[str, Mode], ...]], tuple[Capability, ...]] = {}

    def modes(self, agent: Agent, conversation: str | None) -> dict[str, Mode]:
        """The mode of each domain in the agent's `[apps]`, in registry order."""
        return {
            name: effective_mode(agent, domain, conversation, self.elevations)
            for name, domain in self.registry.domains.items()
            if name in agent.apps
        }

    def view(self, agent: Agent, conversation: str | None) -> tuple[Capability, ...]:
        modes = self.modes(agent, conversation)
        key = (agent.name, tuple(modes.items()))
        cached = self._cache.get(key)
        if cached is None:
            cached = tuple(c for c in self.registry if c.domain in modes and is_visible(agent, c, modes[c.domain]))
            self._cache[key] = cached
        return cached

    def allows(self, agent: Agent, conversation: str | None, capability: Capability) -> bool:
        domain = self.registry.domain(capability.domain)
        if domain is None or capability.domain not in agent.apps:
            return False
        return is_visible(agent, capability, effective_mode(agent, domain, conversation, self.elevations))

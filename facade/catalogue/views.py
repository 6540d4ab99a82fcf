"""Views: which capabilities an agent sees and may call in a conversation.

Both questions go through `effective_modes` and `is_visible` (facade/catalogue/modes.py), so what is
listed and what is enforced can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from facade.catalogue.agents import Agent
from facade.kit.capability import Capability, Mode
from facade.kit.domain import Domain
from facade.catalogue.modes import Elevated, effective_mode, effective_modes, is_visible
from facade.catalogue.registry import Registry


@dataclass(frozen=True, slots=True)
class App:
    """One of an agent's apps as a conversation sees it: its mode and the tools it shows."""

    domain: Domain
    mode: Mode
    tools: tuple[Capability, ...]


class Views:
    """Per-agent views over the registry; a view is cached by the modes that produced it."""

    def __init__(self, registry: Registry, agents: Mapping[str, Agent], elevations: Elevated) -> None:
        self.registry = registry
        self.agents = agents
        self.elevations = elevations
        self._cache: dict[tuple[str, tuple[tuple[str, Mode], ...]], tuple[Capability, ...]] = {}

    def modes(self, agent: Agent, conversation: str | None) -> dict[str, Mode]:
        """The mode of each domain in the agent's `[apps]`, in registry order."""
        domains = [d for name, d in self.registry.domains.items() if name in agent.apps]
        return effective_modes(agent, domains, conversation, self.elevations)

    def view(self, agent: Agent, conversation: str | None) -> tuple[Capability, ...]:
        return self._view(agent, self.modes(agent, conversation))

    def apps(self, agent: Agent, conversation: str | None) -> list[App]:
        """The agent's apps with their modes and visible tools, from one reading of the modes
        (a view and its modes read apart could straddle an elevation)."""
        modes = self.modes(agent, conversation)
        shown: dict[str, list[Capability]] = {name: [] for name in modes}
        for capability in self._view(agent, modes):
            shown[capability.domain].append(capability)
        domains = self.registry.domains
        return [App(domains[name], mode, tuple(shown[name])) for name, mode in modes.items()]

    def _view(self, agent: Agent, modes: dict[str, Mode]) -> tuple[Capability, ...]:
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

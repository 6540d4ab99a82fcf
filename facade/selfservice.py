"""The facade's answer to "what can I do here?" for one agent in one conversation — the
server-side half of the `skills` domain, computed from the same views that list and enforce."""

from __future__ import annotations

from typing import Any

from facade.agents import Agent
from facade.capability import Capability
from facade.schema import announced_tool
from facade.views import Views


class AgentSelfService:
    """`facade.capability.SelfService` for `agent` in `conversation`."""

    def __init__(self, views: Views, agent: Agent, conversation: str | None) -> None:
        self.views = views
        self.agent = agent
        self.conversation = conversation

    def apps(self) -> list[dict[str, Any]]:
        visible = {c.name for c in self.views.view(self.agent, self.conversation)}
        rows = []
        for name, mode in self.views.modes(self.agent, self.conversation).items():
            domain = self.views.registry.domains[name]
            tiers = [c.tier for c in domain.capabilities]
            rows.append(
                {
                    "app": name,
                    "description": domain.description,
                    "mode": mode,
                    "tools_now": sum(c.name in visible for c in domain.capabilities),
                    "core_tools": tiers.count("core"),
                    "full_tools": tiers.count("full"),
                }
            )
        return rows

    def catalogue(self) -> list[Capability]:
        return [c for c in self.views.registry if c.domain in self.agent.apps]

    def visible(self, name: str) -> bool:
        capability = self.views.registry.get(name)
        return capability is not None and self.views.allows(self.agent, self.conversation, capability)

    def describe(self, name: str) -> dict[str, Any] | None:
        capability = self.views.registry.get(name)
        if capability is None or capability.domain not in self.agent.apps:
            return None
        return announced_tool(capability)

"""The facade's answer to "what can I do here?" for one agent in one conversation — the
server-side half of the `skills` domain, computed from the same views that list and enforce."""

from __future__ import annotations

from typing import Any

import time
from collections.abc import Callable

from facade.catalogue.agents import Agent
from facade.access.approvals import Approvals, card_view
from facade.kit.capability import Approval, Capability
from facade.access.elevation import DEFAULT_TTL_SECONDS
from facade.errors import Forbidden, InvalidRequest
from facade.catalogue.schema import announced_tool
from facade.catalogue.views import View, Views


class AgentSelfService:
    """`facade.kit.capability.SelfService` for `agent` in `conversation`.

    `on_granted` is given only to the run of a call an operator approved: no other call can
    grant an elevation, whatever its handler does.
    """

    def __init__(
        self,
        views: Views,
        agent: Agent,
        conversation: str | None,
        approvals: Approvals | None = None,
        *,
        on_granted: Callable[[str, str], None] | None = None,
        elevation_ttl: float = DEFAULT_TTL_SECONDS,
    ) -> None:
        self.views = views
        self.agent = agent
        self.conversation = conversation
        self.approvals = approvals
        self.on_granted = on_granted
        self.elevation_ttl = elevation_ttl
        self._view: View | None = None

    def view(self) -> View:
        """The caller's view, read once per call (a search asks about every tool; over Redis each
        read is a round trip) and again after this call granted an elevation."""
        if self._view is None:
            self._view = self.views.view(self.agent, self.conversation)
        return self._view

    def apps(self) -> list[dict[str, Any]]:
        rows = []
        for app in self.view().apps:
            tiers = [c.tier for c in app.domain.capabilities]
            rows.append(
                {
                    "app": app.domain.name,
                    "description": app.domain.description,
                    "mode": app.mode,
                    "tools_now": len(app.tools),
                    "core_tools": tiers.count("core"),
                    "full_tools": tiers.count("full"),
                }
            )
        return rows

    def catalogue(self) -> list[Capability]:
        return [c for c in self.views.registry if c.domain in self.agent.apps]

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The caller's tools ranked for `query`, each saying whether it can be called now and,
        if not, what it takes; finding a tool grants nothing."""
        view = self.view()
        ranked = self.views.index().rank(query, among={c.name for c in self.catalogue()}, limit=limit)
        rows = []
        for capability, score in ranked:
            callable_now = view.resolve(capability.name) is not None
            rows.append(
                {
                    "name": capability.tool_name,  # as tools/list shows it, so the model finds it there
                    "description": capability.description,
                    "callable_now": callable_now,
                    "needs": needs(capability, callable_now),
                    "score": score,
                }
            )
        return rows

    def visible(self, name: str) -> bool:
        return self.view().resolve(name) is not None

    def describe(self, name: str) -> dict[str, Any] | None:
        """The tool as announced, named by its capability name or the name tools/list shows."""
        capability = self.views.registry.get(name) or self.views.registry.announced(name)
        if capability is None or capability.domain not in self.agent.apps:
            return None
        return announced_tool(capability)

    def grant_elevation(self, domain: str) -> float:
        if self.on_granted is None:
            raise Forbidden("an elevation is granted only by an operator approving a skills.elevate card")
        if self.conversation is None:
            raise InvalidRequest("an elevation belongs to a conversation; this call has none")
        if domain not in self.agent.apps:
            raise InvalidRequest(f"{domain} is not one of your apps")
        self.views.elevations.grant(self.agent.name, self.conversation, domain, self.elevation_ttl)
        self._view = None
        self.on_granted(self.agent.name, self.conversation)
        return time.time() + self.elevation_ttl

    def card(self, card_id: int) -> dict[str, object]:
        if self.approvals is None:
            raise InvalidRequest("approval cards are not available on this server")
        return card_view(self.approvals.for_agent(card_id, self.agent.name, self.conversation))


def needs(capability: Capability, callable_now: bool) -> str:
    """What stands between a found tool and running it, in the words a model acts on."""
    if not callable_now:
        return (
            f"an elevation of {capability.domain}: call skills.elevate with domain {capability.domain!r} "
            "and a reason; it runs once an operator approves the card"
        )
    if capability.approval == Approval.OPERATOR:
        return "nothing to call it; each call is held as a card until an operator approves it"
    if capability.approval == Approval.HOST:
        return "nothing to call it; your host asks its user first"
    return "nothing"

"""The mode of a domain for an agent in a conversation — decided here and nowhere else.

Visibility (tools/list), enforcement (tools/call), the deny-list, TOOLS.md and the budget all
call these two functions: a catalogue and a deny-list that disagree present to the model as
"the model hallucinated a tool".
"""

from __future__ import annotations

from facade.agents import Agent
from facade.capability import Capability, Mode
from facade.domain import Domain
from facade.elevation import Elevations


def effective_mode(agent: Agent, domain: Domain, conversation: str | None, elevations: Elevations) -> Mode:
    """A live elevation for (conversation, domain) → full; else the agent's `[apps]` setting;
    else the domain's default."""
    if conversation is not None and domain.name in elevations.elevated(agent.name, conversation):
        return "full"
    setting = agent.apps.get(domain.name, "default")
    return domain.default_mode if setting == "default" else setting


def is_visible(agent: Agent, capability: Capability, mode: Mode) -> bool:
    """A domain outside the agent's `[apps]` is invisible; in core mode only core tools show."""
    return capability.domain in agent.apps and (capability.tier == "core" or mode == "full")

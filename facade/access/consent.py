"""Approval level 1 enforced at the server: before an approval-1 capability runs, the user
behind the client is asked (MCP elicitation) with a summary of exactly what will run, and the
call runs only if they accept. A decline, a cancel, or a client that cannot ask its user
refuses the call with a message that says so; nothing runs. Every answer is audited like a card
decision (facade/access/audit.py): who (the user behind that agent's client), when, what.

The host's own permission policy (facade/host/permissions.py) still applies on its side first;
this is what makes a desktop client or the Inspector ask too.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel

from facade.access.audit import Audit
from facade.kit import asking
from facade.kit.capability import IDENTITY_FIELDS, Capability
from facade.threads import off_loop

# The longest argument summary shown to the user; a longer one is cut and says so.
SUMMARY_CHARS = 600
# Nothing to fill in: the user accepts or declines what the message describes.
CONFIRM_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def summary(capability: Capability, args: BaseModel, agent: str) -> str:
    """What the user is asked: who wants to run what, with which arguments, and what it does."""
    shown = {k: v for k, v in args.model_dump(mode="json").items() if k not in IDENTITY_FIELDS}
    text = json.dumps(shown, ensure_ascii=False, sort_keys=True)
    if len(text) > SUMMARY_CHARS:
        text = text[:SUMMARY_CHARS] + f"… ({len(text) - SUMMARY_CHARS} more characters)"
    flags = [f for f, on in (("destructive", capability.annotations.destructive),) if on]
    return (
        f"Agent {agent} asks to run {capability.tool_name}{' (' + ', '.join(flags) + ')' if flags else ''}: "
        f"{capability.description} Arguments: {text}. Allow it to run once?"
    )


class Consent:
    """Asks the user before an approval-1 call; audits the answer."""

    def __init__(self, audit: Audit) -> None:
        self.audit = audit

    async def refusal(self, capability: Capability, args: BaseModel, agent: str, conversation: str | None) -> str | None:
        """None when the user accepted; else why the call is refused. Raises `InputNeeded` when
        the answer must come in a later round (2026-07-28)."""
        try:
            answer = await asking.ask_async(summary(capability, args, agent), CONFIRM_SCHEMA)
        except asking.CannotAsk as exc:
            await self._record(capability, agent, conversation, "unasked", str(exc))
            return (
                f"{capability.tool_name} needs its user's approval first (approval level 1), which the server asks "
                f"through MCP elicitation, and {exc}; nothing ran. It needs a client that supports elicitation: "
                "tell the user so rather than retrying."
            )
        await self._record(capability, agent, conversation, "confirmed" if answer.accepted else answer.action + "d", "")
        if answer.accepted:
            return None
        return f"the user {answer.action}d running {capability.tool_name}; nothing ran. Do not retry it unless the user asks."

    async def _record(self, capability: Capability, agent: str, conversation: str | None, action: str, reason: str) -> None:
        record = functools.partial(
            self.audit.record,
            actor=f"user of agent:{agent}",
            action=action,
            subject=capability.name,
            reason=reason,
            agent=agent,
            conversation=conversation,
        )
        await off_loop(record, owner=agent)

"""A conversation's lifecycle on the server side: deleting it reverts its elevations and
cancels its pending cards; time expires both. Each change is audited, and each affected
(agent, conversation) is told its list changed."""

from __future__ import annotations

import time
from typing import Any

from facade.core import Core


def delete_conversation(core: Core, conversation: str, actor: str) -> dict[str, Any]:
    dropped = core.elevations.revoke_conversation(conversation)
    cancelled = core.approvals.cancel_conversation(conversation, actor)
    for agent, domain in dropped:
        core.audit.record(
            actor=actor, action="revoked", subject=f"{domain} → default", reason="conversation deleted",
            agent=agent, conversation=conversation,
        )
    for agent in sorted({agent for agent, _ in dropped}):
        core.changes.publish(agent, conversation)
    return {
        "conversation": conversation,
        "reverted": [{"agent": a, "domain": d} for a, d in dropped],
        "cancelled_cards": [c.id for c in cancelled],
    }


def sweep(core: Core) -> int:
    """Expire what time has ended: elevations past their TTL, pending cards past theirs."""
    expired = core.elevations.expire_due()
    for agent, conversation, domain in expired:
        core.audit.record(
            actor="clock", action="expired", subject=f"{domain} → default", reason="elevation TTL passed",
            agent=agent, conversation=conversation,
        )
    for agent, conversation in sorted({(a, c) for a, c, _ in expired}):
        core.changes.publish(agent, conversation)
    now = time.time()
    stale = 0
    for card in core.approvals.cards.all():
        # Stored as every read already showed it (Card.current), expired at its own time.
        expired_card = card.current(now)
        if card.status == "pending" and expired_card.status == "expired":
            if core.approvals.cards.transition(card.id, "pending", expired_card):
                stale += 1
                core.audit.record(
                    actor="clock", action="expired", subject=card.tool, reason="card TTL passed",
                    card_id=card.id, agent=card.agent, conversation=card.conversation,
                )
    return len(expired) + stale

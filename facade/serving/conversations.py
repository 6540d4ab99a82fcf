"""A conversation's lifecycle on the server side: deleting it reverts its elevations and
cancels its pending cards; time expires both. Each change is audited, and each affected
(agent, conversation) is told its list changed."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import structlog

from facade.errors import Unavailable
from facade.serving.service import Service

log = structlog.get_logger("facade.serving.conversations")


def delete_conversation(service: Service, conversation: str, actor: str) -> dict[str, Any]:
    dropped = service.elevations.revoke_conversation(conversation)
    cancelled = service.approvals.cancel_conversation(conversation, actor)
    for agent, domain in dropped:
        service.audit.record(
            actor=actor, action="revoked", subject=f"{domain} → default", reason="conversation deleted",
            agent=agent, conversation=conversation,
        )
    for agent in sorted({agent for agent, _ in dropped}):
        service.changes.publish(agent, conversation)
    return {
        "conversation": conversation,
        "reverted": [{"agent": a, "domain": d} for a, d in dropped],
        "cancelled_cards": [c.id for c in cancelled],
    }


def sweep(service: Service) -> int:
    """Expire what time has ended: elevations past their TTL, pending cards past theirs.

    One entry that cannot be recorded or told is logged and skipped; every other expiry of the
    sweep is still audited and its conversation still told. Only the store being away (Redis,
    the database: `Unavailable`) ends the sweep early, to be retried on the next one.
    """
    expired = service.elevations.expire_due()
    for agent, conversation, domain in expired:
        with _skipped_if_bad("elevation", agent=agent, conversation=conversation):
            service.audit.record(
                actor="clock", action="expired", subject=f"{domain} → default", reason="elevation TTL passed",
                agent=agent, conversation=conversation,
            )
    for agent, conversation in sorted({(a, c) for a, c, _ in expired}):
        with _skipped_if_bad("list_changed", agent=agent, conversation=conversation):
            service.changes.publish(agent, conversation)
    now = time.time()
    stale = 0
    for card in service.approvals.cards.all():
        # Stored as every read already showed it (Card.current), expired at its own time.
        expired_card = card.current(now)
        if card.status != "pending" or expired_card.status != "expired":
            continue
        with _skipped_if_bad("card", card=card.id):
            if service.approvals.cards.transition(card.id, "pending", expired_card):
                stale += 1
                service.audit.record(
                    actor="clock", action="expired", subject=card.tool, reason="card TTL passed",
                    card_id=card.id, agent=card.agent, conversation=card.conversation,
                )
    return len(expired) + stale


@contextlib.contextmanager
def _skipped_if_bad(what: str, **entry: Any) -> Iterator[None]:
    try:
        yield
    except Unavailable:
        raise
    except Exception:
        log.warning("sweep.entry_skipped", what=what, **entry, exc_info=True)

"""The approval workflow: hold an approval-2 call as a card, let an operator decide, run the
held call with its original identity on approval, and audit every step.

An agent can never approve a card: deciding needs the operator token (API, CLI, dashboard),
and an agent asks only about its own conversation's cards (`skills.card_status`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from facade.access.audit import Audit
from facade.kit.capability import Capability
from facade.access.cards import DEFAULT_CARD_TTL_SECONDS, DEFAULT_MAX_PENDING_CARDS, STATUSES, Card, CardStore
from facade.errors import Conflict, NotFound, UsageError
from facade.threads import off_loop

Runner = Callable[[Card], Awaitable[dict[str, Any]]]


class Approvals:
    """Cards and decisions. `runner` executes an approved card's call: `Calls` builds its
    `Approvals` with its own `run_approved` (facade/serving/calls.py).

    Every method but `approve` does I/O (the card store, the audit log) and is synchronous:
    an async caller runs it in a worker thread. `approve` does its own I/O in one.
    """

    def __init__(
        self,
        cards: CardStore,
        audit: Audit,
        runner: Runner,
        *,
        card_ttl: float = DEFAULT_CARD_TTL_SECONDS,
        max_pending: int = DEFAULT_MAX_PENDING_CARDS,
    ) -> None:
        self.cards = cards
        self.audit = audit
        self.runner = runner
        self.card_ttl = card_ttl
        self.max_pending = max_pending

    def hold(self, capability: Capability, arguments: dict[str, Any], agent: str, conversation: str) -> tuple[Card, bool]:
        """A pending card for the call; the same call already pending in this conversation is
        returned instead of a second card. Returns (card, created).

        An agent with `max_pending` cards waiting gets no new one (Conflict): a model that asks
        again and again must not bury the operator's queue. Between replicas, or two calls of
        one agent at the same instant, the count may pass the cap by the calls in flight.
        """
        now = time.time()
        waiting = 0
        for card in self.cards.all():
            card = card.current(now)
            if card.status != "pending" or card.agent != agent:
                continue
            if (card.conversation, card.tool, card.arguments) == (conversation, capability.name, arguments):
                return card, False
            waiting += 1
        if waiting >= self.max_pending:
            raise Conflict(
                f"{agent} already has {waiting} cards waiting for an operator, the most this server holds "
                f"for one agent (FACADE_MAX_PENDING_CARDS={self.max_pending}); nothing was held. Do not ask "
                "again now: check a waiting card with skills.card_status, and tell the user that an "
                "operator must decide the waiting cards first"
            )
        reason = str(arguments.get("reason", "")).strip()
        card = self.cards.create(
            Card(
                id=self.audit.new_card_id(),
                tool=capability.name,
                arguments=arguments,
                agent=agent,
                conversation=conversation,
                reason=reason,
                created_at=now,
                expires_at=now + self.card_ttl,
            )
        )
        self.audit.record(
            actor=f"agent:{agent}", action="requested", subject=_subject(card), reason=reason,
            card_id=card.id, agent=agent, conversation=conversation,
        )
        return card, True

    def get(self, card_id: int) -> Card:
        card = self.cards.get(card_id)
        if card is None:
            raise NotFound(f"card {card_id} does not exist; list cards with `facade cards list`")
        return card.current(time.time())

    def list(self, status: str | None = None) -> list[Card]:
        if status not in (None, "all", *STATUSES):
            raise UsageError(f"unknown status {status!r}; use one of: all, {', '.join(STATUSES)}")
        now = time.time()
        cards = [c.current(now) for c in self.cards.all()]
        return cards if status in (None, "all") else [c for c in cards if c.status == status]

    def for_agent(self, card_id: int, agent: str, conversation: str | None) -> Card:
        """A card as its own conversation may see it; any other card reads as nonexistent."""
        card = self.cards.get(card_id)
        if card is None or card.agent != agent or card.conversation != conversation:
            raise NotFound(f"card {card_id} is not a card of this conversation; the id comes from the held call's result")
        return card.current(time.time())

    async def approve(self, card_id: int, actor: str, reason: str = "") -> Card:
        """Decide the card approved, run its call, keep the outcome on the card."""
        card = await off_loop(self._decide, card_id, "approved", actor, reason)
        outcome = await self.runner(card)
        done = replace(card, outcome=outcome)
        await off_loop(self._ran, done, actor)
        return done

    def _ran(self, done: Card, actor: str) -> None:
        outcome = done.outcome or {}
        self.cards.put(done)
        self.audit.record(
            actor=actor, action="ran" if outcome.get("ok") else "failed", subject=_subject(done),
            reason=outcome.get("error", ""), card_id=done.id, agent=done.agent, conversation=done.conversation,
        )

    def deny(self, card_id: int, actor: str, reason: str = "") -> Card:
        return self._decide(card_id, "denied", actor, reason)

    def cancel_conversation(self, conversation: str, actor: str) -> list[Card]:
        """Pending cards of a deleted conversation are cancelled: nothing of theirs will run."""
        cancelled = []
        for card in self.list("pending"):
            if card.conversation == conversation:
                try:
                    cancelled.append(self._decide(card.id, "cancelled", actor, "conversation deleted"))
                except Conflict:
                    continue
        return cancelled

    def _decide(self, card_id: int, status: str, actor: str, reason: str) -> Card:
        card = self.get(card_id)
        if card.status != "pending":
            raise Conflict(f"card {card_id} is already {card.status}; only a pending card can be decided")
        decided = replace(card, status=status, decided_by=actor, decided_at=time.time(), decision_reason=reason)  # type: ignore[arg-type]
        if not self.cards.transition(card_id, "pending", decided):
            raise Conflict(f"card {card_id} was decided by someone else a moment ago; reload it")
        self.audit.record(
            actor=actor, action=status, subject=_subject(card), reason=reason,
            card_id=card.id, agent=card.agent, conversation=card.conversation,
        )
        return decided


def _subject(card: Card) -> str:
    if card.tool == "skills.elevate":
        return f"skills.elevate {card.arguments.get('domain')} → full"
    return card.tool


def card_view(card: Card) -> dict[str, Any]:
    """A card as an agent or operator reads it."""
    view: dict[str, Any] = {
        "card_id": card.id,
        "status": card.status,
        "tool": card.tool,
        "arguments": card.arguments,
        "agent": card.agent,
        "conversation": card.conversation,
        "reason": card.reason,
        "created_at": card.created_at,
        "expires_at": card.expires_at,
    }
    if card.decided_by:
        view.update(decided_by=card.decided_by, decided_at=card.decided_at, decision_reason=card.decision_reason)
    if card.outcome is not None:
        view["outcome"] = card.outcome
    return view

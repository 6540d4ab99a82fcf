"""Approval cards: a held call waiting for an operator's yes or no.

Every approval-2 capability is held as a card that carries the call (its tool and its own
arguments, never a token); `skills.elevate` is one of them, and approving it runs it, which
grants the elevation. Cards are ephemeral like elevations — in memory by default, in Redis for
replicas — while every decision is written to the audit log in the database.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, Protocol

from facade.errors import Conflict

Status = Literal["pending", "approved", "denied", "expired", "cancelled"]
STATUSES: tuple[str, ...] = ("pending", "approved", "denied", "expired", "cancelled")
DEFAULT_CARD_TTL_SECONDS = 24 * 3600
# Pending cards one agent may have at once (FACADE_MAX_PENDING_CARDS): an operator decides cards
# one by one, and 300 waiting cards made the dashboard 476 KB and 4.1 s (measured 2026-12).
DEFAULT_MAX_PENDING_CARDS = 20


@dataclass(frozen=True)
class Card:
    """One request for an operator's decision.

    Attributes:
        tool, arguments: the held call, without identity fields.
        agent, conversation: the original identity the call runs with once approved.
        reason: why the agent asks (the call's `reason` argument when it has one).
        outcome: once approved and run, `{"ok": bool, "data"| "error": ...}`.
    """

    id: int
    tool: str
    arguments: dict[str, Any]
    agent: str
    conversation: str
    reason: str
    created_at: float
    expires_at: float
    status: Status = "pending"
    decided_by: str | None = None
    decided_at: float | None = None
    decision_reason: str | None = None
    outcome: dict[str, Any] | None = field(default=None)

    def current(self, now: float) -> Card:
        """This card as of `now`: a pending card past its time reads as expired."""
        if self.status == "pending" and now >= self.expires_at:
            return replace(self, status="expired", decided_by="clock", decided_at=self.expires_at)
        return self

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Card:
        return cls(**data)


class CardStore(Protocol):
    """Where cards live: `MemoryCards` here, `RedisCards` (facade/access/redis_store.py) for replicas.

    A store keeps a card under the id it carries and issues none: ids come from the audit log's
    database (`Audit.new_card_id`), which outlives both stores, so no id is ever issued twice.
    """

    def create(self, card: Card) -> Card: ...

    def get(self, card_id: int) -> Card | None: ...

    def put(self, card: Card) -> None: ...

    def transition(self, card_id: int, expected: Status, card: Card) -> bool: ...

    def all(self) -> list[Card]: ...


class MemoryCards:
    """The default store: a dict, gone with the process (the audit log keeps what was decided)."""

    def __init__(self) -> None:
        self._cards: dict[int, Card] = {}
        self._lock = threading.Lock()

    def create(self, card: Card) -> Card:
        with self._lock:
            if card.id in self._cards:
                raise Conflict(f"card {card.id} already exists; nothing was held")
            self._cards[card.id] = card
            return card

    def get(self, card_id: int) -> Card | None:
        return self._cards.get(card_id)

    def put(self, card: Card) -> None:
        with self._lock:
            self._cards[card.id] = card

    def transition(self, card_id: int, expected: Status, card: Card) -> bool:
        """Replace the card only if it is still in `expected` state (a decision happens once)."""
        with self._lock:
            current = self._cards.get(card_id)
            if current is None or current.status != expected:
                return False
            self._cards[card_id] = card
            return True

    def all(self) -> list[Card]:
        return sorted(self._cards.values(), key=lambda c: c.id)

"""Elevations: (agent, conversation, domain) → full, for a while.

Ephemeral by design: in memory, keyed by conversation, gone when the conversation is deleted or
the TTL passes. A restart degrades every conversation to its defaults, never to something new.
The key carries the agent too, so that one agent's elevation can never reach another agent that
happens to reuse a conversation id.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

DEFAULT_TTL_SECONDS = 8 * 3600


class Elevations(Protocol):
    """What modes and views need of an elevation store."""

    def elevated(self, agent: str, conversation: str) -> frozenset[str]: ...

    def grant(self, agent: str, conversation: str, domain: str, ttl_seconds: float = DEFAULT_TTL_SECONDS) -> None: ...

    def revoke_conversation(self, conversation: str) -> list[tuple[str, str]]: ...

    def expire_due(self) -> list[tuple[str, str, str]]: ...

    def active(self) -> int | None:
        """How many grants are live (None when the store cannot say)."""


class MemoryElevations:
    """The default store: a dict guarded by a lock, expiry checked on read."""

    in_memory = True  # reading it does no I/O: a view may be found on the event loop

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._grants: dict[tuple[str, str], dict[str, float]] = {}

    def elevated(self, agent: str, conversation: str) -> frozenset[str]:
        # Expired grants are filtered here and removed by `expire_due`, which reports them so
        # that their conversations are told the list changed.
        grants = self._grants.get((agent, conversation))
        if not grants:
            return frozenset()
        now = self._clock()
        return frozenset(d for d, t in list(grants.items()) if t > now)

    def grant(self, agent: str, conversation: str, domain: str, ttl_seconds: float = DEFAULT_TTL_SECONDS) -> None:
        with self._lock:
            self._grants.setdefault((agent, conversation), {})[domain] = self._clock() + ttl_seconds

    def revoke_conversation(self, conversation: str) -> list[tuple[str, str]]:
        """Drop every elevation of the conversation; returns the (agent, domain) pairs dropped."""
        with self._lock:
            keys = [k for k in self._grants if k[1] == conversation]
            return [(k[0], d) for k in keys for d in self._grants.pop(k)]

    def active(self) -> int | None:
        now = self._clock()
        with self._lock:
            return sum(1 for grants in self._grants.values() for t in grants.values() if t > now)

    def expire_due(self) -> list[tuple[str, str, str]]:
        """Remove the grants whose time has passed; returns (agent, conversation, domain) of each."""
        now = self._clock()
        expired = []
        with self._lock:
            for key in list(self._grants):
                grants = self._grants[key]
                for domain in [d for d, t in grants.items() if t <= now]:
                    del grants[domain]
                    expired.append((key[0], key[1], domain))
                if not grants:
                    del self._grants[key]
        return expired

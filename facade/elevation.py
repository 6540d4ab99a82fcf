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


class MemoryElevations:
    """The default store: a dict guarded by a lock, expiry checked on read."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._grants: dict[tuple[str, str], dict[str, float]] = {}

    def elevated(self, agent: str, conversation: str) -> frozenset[str]:
        key = (agent, conversation)
        with self._lock:
            grants = self._grants.get(key)
            if not grants:
                return frozenset()
            now = self._clock()
            live = {d: t for d, t in grants.items() if t > now}
            if len(live) != len(grants):
                if live:
                    self._grants[key] = live
                else:
                    del self._grants[key]
            return frozenset(live)

    def grant(self, agent: str, conversation: str, domain: str, ttl_seconds: float = DEFAULT_TTL_SECONDS) -> None:
        with self._lock:
            self._grants.setdefault((agent, conversation), {})[domain] = self._clock() + ttl_seconds

    def revoke_conversation(self, conversation: str) -> list[tuple[str, str]]:
        """Drop every elevation of the conversation; returns the (agent, domain) pairs dropped."""
        with self._lock:
            keys = [k for k in self._grants if k[1] == conversation]
            return [(k[0], d) for k in keys for d in self._grants.pop(k)]

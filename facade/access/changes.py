"""Changes to what an (agent, conversation) may list: published by elevations, revocations and
expiries, consumed by the MCP layer, which tells that conversation's sessions `list_changed`.

In memory by default; with Redis (facade/access/redis_store.py) a change published on one replica
reaches the subscribers of every replica.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog

Listener = Callable[[str, str], None]
log = structlog.get_logger("facade.access.changes")


class Changes:
    """An in-process feed: `publish` calls every subscriber, from any thread."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, agent: str, conversation: str) -> None:
        self.emit(agent, conversation)

    async def run(self) -> None:
        """Receive changes published elsewhere (other replicas); nothing to do in memory."""

    def emit(self, agent: str, conversation: str) -> None:
        """Deliver to this process's subscribers; a failing one never stops the others."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(agent, conversation)
            except Exception:
                log.exception("changes.listener_failed")

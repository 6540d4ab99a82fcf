"""`notifications/tools/list_changed` for every session of one (agent, conversation), in both
protocol eras: handshake-era sessions on their standalone stream, 2026-07-28 clients on their
`subscriptions/listen` streams. Fed by the service's change feed (facade/access/changes.py).

The same change rewrites the agent's TOOLS.md (its apps' modes), so `notifications/resources/
updated` for it goes along: to a handshake-era session that subscribed to it, and to a listen
stream that asked for it (the SDK's listen handler filters by the subscribed URIs)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import structlog
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ResourceUpdated, ServerEvent, ToolsListChanged

log = structlog.get_logger("facade.fanout")


def tools_md_uri(agent: str) -> str:
    """The URI of an agent's TOOLS.md resource (facade/mcp/resources.py serves it)."""
    return f"facade://agents/{agent}/TOOLS.md"
Key = tuple[str, str]


class ScopedBus:
    """A `SubscriptionBus` whose listeners hear only their own (agent, conversation)."""

    def __init__(self, fanout: Fanout, key: Key) -> None:
        self._fanout = fanout
        self._key = key

    async def publish(self, event: ServerEvent) -> None:  # events come from the fan-out, not from here
        raise NotImplementedError

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        return self._fanout.listen(self._key, listener)


class Fanout:
    """This replica's sessions and listen streams, by (agent, conversation)."""

    def __init__(self) -> None:
        self._sessions: dict[Key, dict[str, ServerSession]] = {}
        self._keys_of: dict[str, set[Key]] = {}  # session id → the keys it was remembered under
        self._subscribed: dict[str, set[str]] = {}  # session id → the resource URIs it subscribed to
        self._listeners: dict[Key, dict[object, Callable[[ServerEvent], None]]] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        """Bind to the running event loop, where every delivery happens."""
        self._loop = asyncio.get_running_loop()

    def remember(self, key: Key, session_id: str, session: ServerSession) -> None:
        """A handshake-era session of this conversation (seen on its list or call requests)."""
        with self._lock:
            self._sessions.setdefault(key, {})[session_id] = session
            self._keys_of.setdefault(session_id, set()).add(key)

    def forget(self, session_id: str) -> None:
        """A session has ended: nothing of it stays (each one left ~21 kB behind, 2026-12)."""
        with self._lock:
            self._subscribed.pop(session_id, None)
            for key in self._keys_of.pop(session_id, ()):
                self._drop(key, session_id)

    def subscribe(self, session_id: str, uri: str) -> None:
        """A handshake-era session subscribed to a resource (`resources/subscribe`)."""
        with self._lock:
            self._subscribed.setdefault(session_id, set()).add(uri)

    def unsubscribe(self, session_id: str, uri: str) -> None:
        with self._lock:
            uris = self._subscribed.get(session_id)
            if uris is not None:
                uris.discard(uri)
                if not uris:
                    del self._subscribed[session_id]

    def _drop(self, key: Key, session_id: str) -> None:
        """Under the lock: `session_id` leaves `key`, and `key` goes once it has no session."""
        sessions = self._sessions.get(key)
        if sessions is not None:
            sessions.pop(session_id, None)
            if not sessions:
                del self._sessions[key]

    def listen(self, key: Key, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        with self._lock:
            self._listeners.setdefault(key, {})[token] = listener

        def unsubscribe() -> None:
            with self._lock:
                listeners = self._listeners.get(key)
                if listeners is not None:
                    listeners.pop(token, None)
                    if not listeners:
                        del self._listeners[key]

        return unsubscribe

    def bus(self, key: Key) -> ScopedBus:
        return ScopedBus(self, key)

    def changed(self, agent: str, conversation: str) -> None:
        """Thread-safe: schedule the notifications on the event loop."""
        if self._loop is None or self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._schedule, (agent, conversation))

    def _schedule(self, key: Key) -> None:
        task = asyncio.ensure_future(self.deliver(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def deliver(self, key: Key) -> int:
        """Tell every session and listener of `key`; returns how many were told."""
        tools_md = tools_md_uri(key[0])
        with self._lock:
            sessions = dict(self._sessions.get(key, {}))
            listeners = list(self._listeners.get(key, {}).values())
            watching = {sid for sid in sessions if tools_md in self._subscribed.get(sid, ())}
        told = 0
        for listener in listeners:
            try:
                listener(ToolsListChanged())
                listener(ResourceUpdated(tools_md))  # dropped by the stream unless it asked for it
                told += 1
            except Exception:
                log.exception("fanout.listener_failed")
        for session_id, session in sessions.items():
            try:
                await session.send_tool_list_changed()
                if session_id in watching:
                    await session.send_resource_updated(tools_md)
                told += 1
            except Exception:  # a closed session that has not been forgotten yet
                self.forget(session_id)
        log.info("tools.list_changed", agent=key[0], conversation=key[1], told=told)
        return told

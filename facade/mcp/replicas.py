"""This replica among several behind a balancer (DESIGN "Scale"): its id, which every session
id it mints begins with, and its base URL, registered in Redis while it serves.

A handshake-era session is a live object in the memory of the replica that opened it (the SDK's
serve loop, its streams, the GET stream's connection); a balancer without stickiness sends its
next request anywhere. Rather than rebuilding SDK-internal session state on every replica, the
replica a request lands on forwards it to the one holding the session (facade/mcp/forward.py):
one owner per session, exactly the SDK's semantics, and an owner that is gone means what a
restart means to a client — 404, initialize again.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from time import monotonic
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:  # the redis client is imported only by a server that has replicas (issue 14)
    from facade.access.redis_store import RedisReplicas

REPLICA_ID_LENGTH = 12
SEPARATOR = "-"
# A replica's entry outlives three missed heartbeats; one that stopped without saying so is
# forgotten 15 s later, and its sessions then answer 404 everywhere (the others remember where it
# was for up to one more heartbeat's interval, so a live one cut off from Redis: up to 20 s).
HEARTBEAT_SECONDS = 5
TTL_SECONDS = 15
KNOWN_AT_MOST = 64  # owners remembered before the expired ones are let go


def new_replica_id() -> str:
    return uuid.uuid4().hex[:REPLICA_ID_LENGTH]


def session_id_for(replica_id: str | None) -> str:
    """A new session id: random, and led by the replica's id when there are replicas."""
    random_part = uuid.uuid4().hex
    return random_part if replica_id is None else f"{replica_id}{SEPARATOR}{random_part}"


def replica_of(session_id: str | None) -> str | None:
    """The replica id a session id begins with, or None for one minted without replicas."""
    if not session_id:
        return None
    prefix, separator, _ = session_id.partition(SEPARATOR)
    if separator and len(prefix) == REPLICA_ID_LENGTH and all(c in "0123456789abcdef" for c in prefix):
        return prefix
    return None


@dataclass
class Replica:
    """This process as one of the replicas sharing `directory`."""

    url: str
    directory: RedisReplicas
    id: str = field(default_factory=new_replica_id)
    # Where the others were found, and until when to trust it without asking Redis again.
    _known: dict[str, tuple[str, float]] = field(default_factory=dict, init=False, repr=False, compare=False)

    async def owner_url(self, session_id: str | None) -> str | None:
        """The base URL of the other replica holding `session_id`; None when it is this one's
        (or no replica's) to answer. Raises `LookupError` when its replica is gone."""
        owner = replica_of(session_id)
        if owner is None or owner == self.id:
            return None
        # A replica's URL is fixed for its life, so a forwarded call need not ask Redis for it
        # each time (a round trip, ~0.2 ms of this replica's CPU per call, 2026-12-06). Asked
        # again after a heartbeat's interval, as often as a live owner renews its entry: an owner
        # gone within that interval refuses the connection, which answers 404 as a missing entry
        # does (facade/mcp/forward.py), and is forgotten then.
        known = self._known.get(owner)
        if known is not None and known[1] > monotonic():
            return known[0]
        found = await self.directory.lookup(owner)
        if found is None:
            self._known.pop(owner, None)
            raise LookupError(owner)
        now = monotonic()
        if len(self._known) >= KNOWN_AT_MOST:  # replicas restarted over months each left one
            self._known = {k: v for k, v in self._known.items() if v[1] > now}
        self._known[owner] = (found, now + HEARTBEAT_SECONDS)
        return found

    def unreachable(self, session_id: str) -> None:
        """The owner of `session_id` did not answer: ask Redis about it next time."""
        owner = replica_of(session_id)
        if owner is not None:
            self._known.pop(owner, None)

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        """Registered, and kept registered, while the server runs; unregistered when it stops."""
        await self.directory.register(self.id, self.url, TTL_SECONDS)
        try:
            async with anyio.create_task_group() as background:
                background.start_soon(self._heartbeat)
                yield
                background.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self.directory.unregister(self.id)
                await self.directory.close()

    async def _heartbeat(self) -> None:
        while True:
            await anyio.sleep(HEARTBEAT_SECONDS)
            await self.directory.register(self.id, self.url, TTL_SECONDS)

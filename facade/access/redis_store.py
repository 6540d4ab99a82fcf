"""Elevations, cards and the list-changed feed in Redis, so that every replica agrees.

Keys (all under `facade:`):
  elev:{agent}:{conversation}   hash domain → expiry (epoch s); the key expires with its last grant
  elev:due                      sorted set "agent\\x1fconversation\\x1fdomain" by expiry, for the sweeper
  conv:{conversation}           set of agents with elevations in the conversation (for deletion)
  card:{id}                     JSON of a card (its id issued by the audit log's database, so an
                                emptied Redis never issues an id again); cards:ids sorted set of ids
  channel <db>:list_changed     pub/sub: {"agent", "conversation"} to every replica (named by the
                                database: pub/sub spans a server's databases, deployments don't)
  replica:{id}                  a serving replica's base URL, kept alive by its heartbeat
                                (facade/mcp/replicas.py): where its handshake-era sessions are

Fail closed: when Redis cannot be reached, reading elevations answers "none" (every agent sees
its defaults, core listing and calls go on) and granting or holding raises Unavailable. Every
failed command is also reported to `on_error` (the service counts them: `facade_redis_errors`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import anyio
import redis
import redis.asyncio as aioredis
import structlog

from facade.access.cards import Card, Status
from facade.access.changes import Changes
from facade.access.elevation import DEFAULT_TTL_SECONDS
from facade.errors import Conflict, StartupError, Unavailable
from facade.settings import redact_url as redact

log = structlog.get_logger("facade.redis")
PREFIX = "facade:"


def channel(client: redis.Redis) -> str:
    """The list_changed channel of the client's database. Redis delivers a message to every
    subscriber on the server, whatever database it selected; two deployments sharing a server
    in databases of their own would otherwise hear each other's approvals."""
    return f"{PREFIX}{client.connection_pool.connection_kwargs.get('db', 0)}:list_changed"
SEP = "\x1f"
CARD_KEEP_SECONDS = 7 * 24 * 3600  # decided cards stay readable for a week
# Short timeouts: a Redis that does not answer must not hold a tools/list hostage.
TIMEOUTS = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
OnError = Callable[[], None]


def _ignore() -> None:
    pass


def unavailable(url: str) -> Unavailable:
    return Unavailable(
        f"elevations and approvals are unavailable: Redis at {redact(url)} cannot be reached; "
        "nothing was changed — try again shortly (core tools keep working)"
    )


class RedisElevations:
    def __init__(self, client: redis.Redis, url: str, on_error: OnError = _ignore) -> None:
        self.r = client
        self.url = url
        self.on_error = on_error

    def elevated(self, agent: str, conversation: str) -> frozenset[str]:
        try:
            grants = self.r.hgetall(f"{PREFIX}elev:{agent}:{conversation}")
        except redis.RedisError:
            self.on_error()
            log.warning("redis.elevations_unreadable", url=redact(self.url))
            return frozenset()  # fail closed: the defaults, never something new
        now = time.time()
        return frozenset(k.decode() for k, v in grants.items() if float(v) > now)

    def grant(self, agent: str, conversation: str, domain: str, ttl_seconds: float = DEFAULT_TTL_SECONDS) -> None:
        expiry = time.time() + ttl_seconds
        key = f"{PREFIX}elev:{agent}:{conversation}"
        try:
            pipe = self.r.pipeline()
            pipe.hset(key, domain, expiry)
            pipe.expire(key, int(ttl_seconds) + 60)
            pipe.zadd(f"{PREFIX}elev:due", {SEP.join((agent, conversation, domain)): expiry})
            pipe.sadd(f"{PREFIX}conv:{conversation}", agent)
            pipe.expire(f"{PREFIX}conv:{conversation}", int(ttl_seconds) + 60)
            pipe.execute()
        except redis.RedisError:
            self.on_error()
            raise unavailable(self.url) from None

    def revoke_conversation(self, conversation: str) -> list[tuple[str, str]]:
        try:
            agents = [a.decode() for a in self.r.smembers(f"{PREFIX}conv:{conversation}")]
            dropped: list[tuple[str, str]] = []
            for agent in agents:
                key = f"{PREFIX}elev:{agent}:{conversation}"
                domains = [d.decode() for d in self.r.hkeys(key)]
                self.r.delete(key)
                if domains:
                    self.r.zrem(f"{PREFIX}elev:due", *[SEP.join((agent, conversation, d)) for d in domains])
                dropped += [(agent, d) for d in domains]
            self.r.delete(f"{PREFIX}conv:{conversation}")
            return dropped
        except redis.RedisError:
            self.on_error()
            raise unavailable(self.url) from None

    def active(self) -> int | None:
        """Live grants of every replica (the due index holds one member per grant)."""
        try:
            return int(self.r.zcount(f"{PREFIX}elev:due", f"({time.time()}", "+inf"))
        except redis.RedisError:
            self.on_error()
            return None

    def expire_due(self) -> list[tuple[str, str, str]]:
        """Claim the grants past their time; a member removed by another replica first is theirs.
        A member that cannot be read is dropped and logged, never raised: one bad entry must not
        cost every other expiry of the sweep its audit entry and its list_changed."""
        expired: list[tuple[str, str, str]] = []
        try:
            due = self.r.zrangebyscore(f"{PREFIX}elev:due", 0, time.time())
            for member in due:
                if not self.r.zrem(f"{PREFIX}elev:due", member):
                    continue
                grant = due_member(member)
                if grant is None:
                    log.warning("redis.due_entry_unreadable", member=ascii(member[:80]))
                    continue
                agent, conversation, domain = grant
                self.r.hdel(f"{PREFIX}elev:{agent}:{conversation}", domain)
                expired.append(grant)
        except redis.RedisError:
            self.on_error()
            log.warning("redis.sweep_failed", url=redact(self.url))
        return expired  # what was claimed before Redis went away is still reported


def due_member(member: bytes) -> tuple[str, str, str] | None:
    """(agent, conversation, domain) of an `elev:due` member, or None when it cannot be one.
    Agent and domain names never hold the separator, so a conversation that does (granted
    before conversation ids were checked where they enter) still reads whole."""
    try:
        text = member.decode()
    except UnicodeDecodeError:
        return None
    agent, first, rest = text.partition(SEP)
    conversation, second, domain = rest.rpartition(SEP)
    if not (first and second and agent and conversation and domain):
        return None
    return agent, conversation, domain


class RedisCards:
    def __init__(self, client: redis.Redis, url: str, on_error: OnError = _ignore) -> None:
        self.r = client
        self.url = url
        self.on_error = on_error

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except redis.RedisError:
            self.on_error()
            raise unavailable(self.url) from None

    def create(self, card: Card) -> Card:
        """Store a new card under the id it carries (Approvals.hold has the audit log issue it)."""
        keep = max(card.expires_at - time.time(), 0) + CARD_KEEP_SECONDS
        key = f"{PREFIX}card:{card.id}"
        if not self._call(lambda: self.r.set(key, json.dumps(card.as_json()), ex=int(keep), nx=True)):
            raise Conflict(f"card {card.id} already exists; nothing was held")
        self._call(self.r.zadd, f"{PREFIX}cards:ids", {str(card.id): card.id})
        return card

    def get(self, card_id: int) -> Card | None:
        raw = self._call(self.r.get, f"{PREFIX}card:{card_id}")
        return _card(raw, card_id) if raw else None

    def put(self, card: Card) -> None:
        keep = max(card.expires_at - time.time(), 0) + CARD_KEEP_SECONDS
        self._call(self.r.set, f"{PREFIX}card:{card.id}", json.dumps(card.as_json()), int(keep))

    def transition(self, card_id: int, expected: Status, card: Card) -> bool:
        """Compare-and-set under WATCH: one replica's decision wins, the other sees a conflict."""
        key = f"{PREFIX}card:{card_id}"
        try:
            with self.r.pipeline() as pipe:
                pipe.watch(key)
                raw = pipe.get(key)
                current = _card(raw, card_id) if raw else None
                if current is None or current.status != expected:
                    pipe.unwatch()
                    return False
                pipe.multi()
                keep = max(card.expires_at - time.time(), 0) + CARD_KEEP_SECONDS
                pipe.set(key, json.dumps(card.as_json()), int(keep))
                pipe.execute()
                return True
        except redis.WatchError:
            return False
        except redis.RedisError:
            self.on_error()
            raise unavailable(self.url) from None

    def all(self) -> list[Card]:
        """Every card in one MGET: the sweep reads them all every few seconds on every replica
        (500 cards over loopback: one GET each 32 ms, one MGET 6 ms; measured 2026-11-30). The
        id of a card whose key has expired leaves the index, which would otherwise only grow."""
        ids = self._call(self.r.zrange, f"{PREFIX}cards:ids", 0, -1)
        if not ids:
            return []
        raws = self._call(self.r.mget, [f"{PREFIX}card:{int(i)}" for i in ids])
        cards, gone = [], []
        for card_id, raw in zip(ids, raws, strict=True):
            card = None if raw is None else _card(raw, card_id.decode(errors="replace"))
            if card is None:
                gone.append(card_id)
            else:
                cards.append(card)
        if gone:
            self._call(self.r.zrem, f"{PREFIX}cards:ids", *gone)
        return cards


def _card(raw: bytes, card_id: int | str) -> Card | None:
    """The card stored as `raw`, or None (logged) when it does not read as one: the index then
    forgets it, so that one bad value cannot stop the sweep, the dashboard or the API."""
    try:
        return Card.from_json(json.loads(raw))
    except (ValueError, TypeError):
        log.warning("redis.card_unreadable", card=ascii(str(card_id)[:40]))
        return None


class RedisChanges(Changes):
    """Publishing goes to Redis; every replica (this one included) emits what arrives."""

    def __init__(self, client: redis.Redis, url: str, on_error: OnError = _ignore) -> None:
        super().__init__()
        self.r = client
        self.url = url
        self.on_error = on_error
        self.channel = channel(client)

    def publish(self, agent: str, conversation: str) -> None:
        try:
            self.r.publish(self.channel, json.dumps({"agent": agent, "conversation": conversation}))
        except redis.RedisError:
            self.on_error()
            log.warning("redis.publish_failed", url=redact(self.url))
            self.emit(agent, conversation)  # at least this replica's sessions hear it

    async def run(self) -> None:
        """Listen for changes from every replica, reconnecting while Redis is away."""
        while True:
            try:
                async with aioredis.from_url(self.url) as client, client.pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            data = json.loads(message["data"])
                            self.emit(data["agent"], data["conversation"])
            except (redis.RedisError, OSError):
                self.on_error()
                log.warning("redis.subscription_lost", url=redact(self.url))
                await anyio.sleep(1)


class RedisReplicas:
    """Where each serving replica is, for forwarding a session's requests to the one holding it.
    Async: it is read on the event loop, when a request that another replica holds arrives and
    that replica's URL is not known from the last heartbeat's interval (facade/mcp/replicas.py)."""

    def __init__(self, url: str, on_error: OnError = _ignore) -> None:
        self.url = url
        self.r = aioredis.from_url(url, **TIMEOUTS)
        self.on_error = on_error

    async def register(self, replica_id: str, base_url: str, ttl_seconds: int) -> None:
        try:
            await self.r.set(f"{PREFIX}replica:{replica_id}", base_url, ex=ttl_seconds)
        except redis.RedisError:
            self.on_error()
            log.warning("redis.replica_unregistered", url=redact(self.url))

    async def unregister(self, replica_id: str) -> None:
        try:
            await self.r.delete(f"{PREFIX}replica:{replica_id}")
        except redis.RedisError:
            self.on_error()  # it expires by itself

    async def lookup(self, replica_id: str) -> str | None:
        """The replica's base URL; None when it is gone or Redis cannot say."""
        try:
            found = await self.r.get(f"{PREFIX}replica:{replica_id}")
        except redis.RedisError:
            self.on_error()
            log.warning("redis.replica_unreadable", url=redact(self.url))
            return None
        return found.decode() if found is not None else None

    async def close(self) -> None:
        await self.r.aclose()


def redis_backends(url: str, on_error: OnError = _ignore) -> tuple[RedisElevations, RedisCards, RedisChanges]:
    client = redis.Redis.from_url(url, **TIMEOUTS)
    return RedisElevations(client, url, on_error), RedisCards(client, url, on_error), RedisChanges(client, url, on_error)


def ping(url: str) -> None:
    """Raises when Redis at `url` does not answer within the stores' timeouts."""
    with redis.Redis.from_url(url, **TIMEOUTS) as client:
        client.ping()


def require_redis(url: str) -> None:
    """Ping once, so that a Redis that is down stops the start with one line instead of every
    elevation failing later."""
    try:
        ping(url)
    except (redis.RedisError, OSError) as exc:
        raise StartupError(
            f"Redis at {redact(url)} cannot be reached ({exc}); start it, or correct or unset FACADE_REDIS_URL"
        ) from None

"""A conversation's lifecycle: the sweep expires what time has ended, as every read showed it."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from facade.serving import migrate
from facade.access.approvals import Approvals
from facade.access.audit import Audit
from facade.access.cards import Card, MemoryCards
from facade.access.changes import Changes
from facade.serving.conversations import sweep
from facade.serving.database import make_engine, session_factory
from facade.access.elevation import MemoryElevations
from facade.catalogue.registry import Registry
from tests.support import free_port, need_service
from tests.test_elevation_backends import PrivateRedis


async def never_run(card: Card) -> dict[str, Any]:
    raise AssertionError(f"the sweep ran card {card.id}")


class TestSweep:
    """A pending card past its time is stored expired exactly as it was read before the sweep."""

    def test_expired_card_is_stored_as_read(self, tmp_path: Path) -> None:
        engine = make_engine(f"sqlite:///{tmp_path / 'sweep.db'}")
        migrate.upgrade(engine, Registry())
        cards = MemoryCards()
        approvals = Approvals(cards, Audit(session_factory(engine)), never_run)
        service = SimpleNamespace(elevations=MemoryElevations(), approvals=approvals, audit=approvals.audit, changes=Changes())
        now = time.time()
        late = cards.create(Card(1, "skills.elevate", {"domain": "files"}, "atlas", "c", "", now - 60, now - 30))
        live = cards.create(Card(2, "skills.elevate", {"domain": "photos"}, "atlas", "c", "", now, now + 600))
        read = approvals.get(late.id)
        assert read.status == "expired" and read.decided_at == late.expires_at
        assert sweep(service) == 1  # type: ignore[arg-type]
        assert cards.get(late.id) == read
        assert cards.get(live.id) == live
        assert [e["action"] for e in approvals.audit.entries()] == ["expired"]
        assert sweep(service) == 0  # type: ignore[arg-type]
        engine.dispose()


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    """A redis-server of this test's own: the machine's Redis is shared with other tests."""
    if shutil.which("redis-server") is None:
        need_service("redis-server", "not on PATH")
    server = PrivateRedis(free_port())
    server.start()
    try:
        yield f"redis://127.0.0.1:{server.port}/0"
    finally:
        server.stop()


def sweep_service(tmp_path: Path, elevations: Any, cards: Any = None, audit: Any = None) -> Any:
    engine = make_engine(f"sqlite:///{tmp_path / 'sweep.db'}")
    migrate.upgrade(engine, Registry())
    audit = audit or Audit(session_factory(engine))
    approvals = Approvals(cards or MemoryCards(), audit, never_run)
    changes = Changes()
    told: list[tuple[str, str]] = []
    changes.subscribe(lambda agent, conversation: told.append((agent, conversation)))
    return SimpleNamespace(elevations=elevations, approvals=approvals, audit=audit, changes=changes, told=told)


def expired_in(service: Any) -> set[str]:
    return {e["conversation"] for e in service.audit.entries() if e["action"] == "expired" and e["actor"] == "clock"}


class TestSweepSurvivesABadEntry:
    """One entry the sweep cannot read or record is skipped and logged; every other expiry is
    still audited and its conversation told the list changed."""

    def test_redis_elevation_with_a_separator_in_its_conversation(self, tmp_path: Path) -> None:
        import redis

        from facade.access.redis_store import PREFIX, RedisElevations

        with private_redis() as url:
            client = redis.Redis.from_url(url)
            elevations = RedisElevations(client, url)
            # Granted before ids were checked where they enter: the store itself takes anything.
            for conversation in ("before", "bad\x1fone", "after"):
                elevations.grant("atlas", conversation, "files", ttl_seconds=-1)
            client.zadd(f"{PREFIX}elev:due", {b"\xff\xfe not utf-8": 0})
            service = sweep_service(tmp_path, elevations)
            assert sweep(service) == 3
            assert expired_in(service) == {"before", "after", "bad\x1fone"}
            assert sorted(service.told) == [("atlas", "after"), ("atlas", "bad\x1fone"), ("atlas", "before")]
            assert client.zcard(f"{PREFIX}elev:due") == 0  # the unreadable member left, it cannot poison the next sweep
            assert sweep(service) == 0
            client.close()

    def test_redis_card_that_does_not_decode(self, tmp_path: Path) -> None:
        import redis

        from facade.access.redis_store import PREFIX, RedisCards, RedisElevations

        with private_redis() as url:
            client = redis.Redis.from_url(url)
            cards = RedisCards(client, url)
            now = time.time()
            late = cards.create(Card(41, "skills.elevate", {"domain": "files"}, "atlas", "late", "", now - 60, now - 30))
            client.set(f"{PREFIX}card:{late.id + 1000}", b"{not json")
            client.zadd(f"{PREFIX}cards:ids", {str(late.id + 1000): late.id + 1000})
            service = sweep_service(tmp_path, RedisElevations(client, url), cards)
            assert sweep(service) == 1
            assert cards.get(late.id).status == "expired"  # type: ignore[union-attr]
            assert [c.id for c in cards.all()] == [late.id]
            client.close()

    def test_an_audit_record_that_fails_loses_no_other(self, tmp_path: Path) -> None:
        engine = make_engine(f"sqlite:///{tmp_path / 'audit.db'}")
        migrate.upgrade(engine, Registry())

        class Flaky(Audit):
            def record(self, **entry: Any) -> None:
                if entry.get("conversation") == "poison":
                    raise ValueError("this one entry cannot be written")
                super().record(**entry)

        elevations = MemoryElevations()
        for conversation in ("first", "poison", "last"):
            elevations.grant("atlas", conversation, "files", ttl_seconds=-1)
        service = sweep_service(tmp_path, elevations, audit=Flaky(session_factory(engine)))
        sweep(service)
        assert expired_in(service) == {"first", "last"}
        assert sorted(service.told) == [("atlas", "first"), ("atlas", "last"), ("atlas", "poison")]
        engine.dispose()

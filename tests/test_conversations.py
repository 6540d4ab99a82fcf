"""A conversation's lifecycle: the sweep expires what time has ended, as every read showed it."""

from __future__ import annotations

import time
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
        late = cards.create(Card(0, "skills.elevate", {"domain": "files"}, "atlas", "c", "", now - 60, now - 30))
        live = cards.create(Card(0, "skills.elevate", {"domain": "photos"}, "atlas", "c", "", now, now + 600))
        read = approvals.get(late.id)
        assert read.status == "expired" and read.decided_at == late.expires_at
        assert sweep(service) == 1  # type: ignore[arg-type]
        assert cards.get(late.id) == read
        assert cards.get(live.id) == live
        assert [e["action"] for e in approvals.audit.entries()] == ["expired"]
        assert sweep(service) == 0  # type: ignore[arg-type]
        engine.dispose()

"""The audit log reads back the same on every backend: instants in UTC, with their offset."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from facade.serving import migrate
from facade.access.audit import Audit
from facade.serving.database import make_engine, session_factory
from facade.catalogue.registry import Registry
from tests.support import postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            yield f"sqlite:///{tmp_path / 'audit.db'}"
        else:
            yield stack.enter_context(postgres_database())


class TestAudit:
    """What is recorded is read back newest first, its instant timezone-aware in UTC."""

    def test_entries_read_back_in_utc(self, database_url: str) -> None:
        engine = make_engine(database_url)
        migrate.upgrade(engine, Registry())
        audit = Audit(session_factory(engine))
        before = dt.datetime.now(dt.UTC)
        audit.record(actor="operator", action="approved", subject="skills.elevate files → full", card_id=1)
        audit.record(actor="clock", action="expired", subject="files → default", agent="atlas", conversation="c")
        entries = audit.entries()
        assert [e["action"] for e in entries] == ["expired", "approved"]
        at = dt.datetime.fromisoformat(entries[0]["at"])
        assert at.utcoffset() == dt.timedelta(0) and before <= at <= dt.datetime.now(dt.UTC)
        engine.dispose()

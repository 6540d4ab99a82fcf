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


class TestCardIds:
    """The audit's database issues card ids: they only grow, and a database whose audit log
    already names cards (ids issued by a Redis counter before) continues past the highest."""

    def test_ids_continue_past_the_audit_log(self, database_url: str) -> None:
        from alembic import command

        engine = make_engine(database_url)
        config = migrate.alembic_config(Registry())
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "facade_0001")
        audit = Audit(session_factory(engine))
        audit.record(actor="agent:atlas", action="requested", subject="skills.elevate files → full", card_id=57)
        migrate.upgrade(engine, Registry())
        issued = [audit.new_card_id() for _ in range(3)]
        assert issued[0] > 57 and issued == sorted(set(issued)), issued
        engine.dispose()
        again = make_engine(database_url)
        assert Audit(session_factory(again)).new_card_id() > issued[-1]
        again.dispose()

"""A call's database session (facade/serving/callsessions.py): what is committed, what is rolled
back, what is skipped, and which closed sessions a thread's next call may be handed; on SQLite
and on PostgreSQL, whose driver cannot say whether a transaction is open."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, Integer, String, create_engine, event, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from facade.serving.callsessions import CallSessions, nothing_to_commit
from facade.serving.database import make_engine, session_factory
from tests.support import postgres_database


class Base(DeclarativeBase):
    """Apart from the facade's metadata."""


class Row(Base):
    __tablename__ = "callsessions_row"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        made = make_engine(f"sqlite:///{tmp_path / 'calls.db'}")
        Base.metadata.create_all(made)
        yield made
        made.dispose()
        return
    with postgres_database() as url:
        made = make_engine(url)
        Base.metadata.create_all(made)
        yield made
        made.dispose()


def commits_seen(engine: Engine) -> list[int]:
    """One entry per COMMIT the engine's connections send."""
    seen: list[int] = []
    event.listen(engine, "commit", lambda _conn: seen.append(1))
    return seen


def names(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return list(connection.execute(select(Row.name).order_by(Row.name)).scalars())


def test_a_write_is_committed_and_seen_elsewhere(engine: Engine) -> None:
    sessions = CallSessions(session_factory(engine))
    session = sessions()
    session.add(Row(name="written"))
    assert not nothing_to_commit(session)
    sessions.finish(session, failed=False)
    assert names(engine) == ["written"]


def test_a_flushed_write_is_committed_though_nothing_is_pending(engine: Engine) -> None:
    sessions = CallSessions(session_factory(engine))
    session = sessions()
    session.add(Row(name="flushed"))
    session.flush()
    session.execute(text("UPDATE callsessions_row SET name = 'updated'"))
    assert not (session.new or session.dirty or session.deleted)
    assert not nothing_to_commit(session)
    sessions.finish(session, failed=False)
    assert names(engine) == ["updated"]


def test_a_failed_call_is_rolled_back(engine: Engine) -> None:
    sessions = CallSessions(session_factory(engine))
    session = sessions()
    session.add(Row(name="lost"))
    session.flush()
    sessions.finish(session, failed=True)
    assert names(engine) == []


def test_a_commit_that_fails_is_rolled_back_and_raised_and_the_session_serves_again(engine: Engine) -> None:
    sessions = CallSessions(session_factory(engine))
    first = sessions()
    first.add(Row(name="same"))
    sessions.finish(first, failed=False)
    clashing = sessions()
    clashing.add(Row(name="same"))  # flushed by the commit, where the unique name refuses it
    with pytest.raises(IntegrityError):
        sessions.finish(clashing, failed=False)
    again = sessions()
    assert again is clashing  # rolled back and closed: as good as new
    assert not again.new
    again.add(Row(name="other"))
    sessions.finish(again, failed=False)
    assert names(engine) == ["other", "same"]


def test_a_read_sends_no_commit_on_sqlite_and_one_where_the_driver_cannot_say(engine: Engine) -> None:
    sessions = CallSessions(session_factory(engine))
    seen = commits_seen(engine)
    session = sessions()
    session.execute(select(Row)).all()
    sessions.finish(session, failed=False)
    if engine.dialect.name == "sqlite":  # pysqlite opens no transaction for a SELECT, and says so
        assert seen == []
    else:  # psycopg's connection has no `in_transaction`: committed as before
        assert seen == [1]


def test_a_session_listening_for_commits_is_committed(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'listen.db'}")
    sessions = CallSessions(session_factory(engine))
    session = sessions()
    fired: list[Session] = []
    event.listen(session, "after_commit", fired.append)
    session.execute(text("SELECT 1"))
    assert not nothing_to_commit(session)
    sessions.finish(session, failed=False)
    assert fired == [session]
    engine.dispose()


def test_an_unused_session_has_nothing_to_commit(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'unused.db'}")
    session = CallSessions(session_factory(engine))()
    assert nothing_to_commit(session)
    engine.dispose()


def test_a_thread_is_handed_the_session_its_last_call_closed(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'reuse.db'}")
    Base.metadata.create_all(engine)
    sessions = CallSessions(session_factory(engine))
    first = sessions()
    first.add(Row(name="kept"))
    sessions.finish(first, failed=False)
    second = sessions()
    assert second is first
    assert not second.identity_map and not second.in_transaction()  # reset, as new
    assert second.scalars(select(Row.name)).all() == ["kept"]
    other: list[Session] = []
    worker = threading.Thread(target=lambda: other.append(sessions()))
    worker.start()
    worker.join(timeout=30)
    assert other and other[0] is not second  # another thread's spare is its own; this one is in use
    sessions.finish(second, failed=False)
    engine.dispose()


@pytest.mark.parametrize(
    "touch",
    [
        lambda s: s.info.update(outbox=["sent later"]),
        lambda s: event.listen(s, "after_soft_rollback", lambda *_: None),
        lambda s: setattr(s, "autoflush", False),
        lambda s: setattr(s, "expire_on_commit", True),
        lambda s: setattr(s, "bind", create_engine("sqlite://")),
    ],
    ids=["info", "listener", "autoflush", "expire_on_commit", "bind"],
)
def test_a_session_a_handler_changed_is_not_handed_on(tmp_path: Path, touch) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(f"sqlite:///{tmp_path / 'changed.db'}")
    sessions = CallSessions(session_factory(engine))
    session = sessions()
    touch(session)
    sessions.finish(session, failed=False)
    assert sessions() is not session
    engine.dispose()

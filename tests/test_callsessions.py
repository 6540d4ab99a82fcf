"""A call's database session (facade/serving/callsessions.py): what is committed, what is rolled
back, what is skipped, and which closed sessions a thread's next call may be handed; on SQLite,
whose calls keep a connection per thread, and on PostgreSQL, whose calls take pooled ones and
whose driver cannot say whether a transaction is open."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from sqlalchemy import Connection, Engine, Integer, String, create_engine, event, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from facade.serving.callsessions import CallSessions, nothing_to_commit
from facade.serving.database import kept_connections, make_engine, session_factory
from facade.serving.calls import CallRequest
from facade.serving.outcomes import Outcome
from facade.serving.service import build_service, prepare_database
from tests.support import DEV, ServerProcess, base_env, postgres_database, raw_call


class Base(DeclarativeBase):
    """Apart from the facade's metadata."""


class Row(Base):
    __tablename__ = "callsessions_row"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)


@dataclass
class Database:
    engine: Engine
    sessions: CallSessions  # as the service makes them for this database
    calls_engine: Engine  # the engine whose connections the calls' sessions use


def served(engine: Engine) -> Database:
    kept = kept_connections(engine)
    sessions = CallSessions(session_factory(engine), kept.connect if kept is not None else None)
    return Database(engine, sessions, kept if kept is not None else engine)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        made = make_engine(f"sqlite:///{tmp_path / 'calls.db'}")
        Base.metadata.create_all(made)
        yield served(made)
        made.dispose()
        return
    with postgres_database() as url:
        made = make_engine(url)
        Base.metadata.create_all(made)
        yield served(made)
        made.dispose()


def commits_seen(engine: Engine) -> list[int]:
    """One entry per COMMIT the engine's connections send."""
    seen: list[int] = []
    event.listen(engine, "commit", lambda _conn: seen.append(1))
    return seen


def names(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return list(connection.execute(select(Row.name).order_by(Row.name)).scalars())


def test_a_write_is_committed_and_seen_elsewhere(db: Database) -> None:
    sessions = db.sessions
    session = sessions()
    session.add(Row(name="written"))
    assert not nothing_to_commit(session)
    sessions.finish(session, failed=False)
    assert names(db.engine) == ["written"]


def test_a_flushed_write_is_committed_though_nothing_is_pending(db: Database) -> None:
    sessions = db.sessions
    session = sessions()
    session.add(Row(name="flushed"))
    session.flush()
    session.execute(text("UPDATE callsessions_row SET name = 'updated'"))
    assert not (session.new or session.dirty or session.deleted)
    assert not nothing_to_commit(session)
    sessions.finish(session, failed=False)
    assert names(db.engine) == ["updated"]


def test_a_failed_call_is_rolled_back(db: Database) -> None:
    sessions = db.sessions
    session = sessions()
    session.add(Row(name="lost"))
    session.flush()
    sessions.finish(session, failed=True)
    assert names(db.engine) == []


def test_a_commit_that_fails_is_rolled_back_and_raised_and_the_session_serves_again(db: Database) -> None:
    sessions = db.sessions
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
    assert names(db.engine) == ["other", "same"]


def test_a_read_sends_no_commit_on_sqlite_and_one_where_the_driver_cannot_say(db: Database) -> None:
    sessions = db.sessions
    seen = commits_seen(db.calls_engine)
    session = sessions()
    session.execute(select(Row)).all()
    sessions.finish(session, failed=False)
    if db.engine.dialect.name == "sqlite":  # pysqlite opens no transaction for a SELECT, and says so
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


def sqlite_sessions(path: Path, *, kept: bool) -> tuple[Engine, CallSessions]:
    """A SQLite file's engine, with call sessions that keep a connection per thread or pooled ones."""
    engine = make_engine(f"sqlite:///{path}")
    Base.metadata.create_all(engine)
    return engine, (served(engine).sessions if kept else CallSessions(session_factory(engine)))


def dbapi_connection(session: Session) -> object:
    return session.connection().connection.dbapi_connection


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "pooled"])
def test_a_thread_is_handed_the_session_its_last_call_closed(tmp_path: Path, kept: bool) -> None:
    engine, sessions = sqlite_sessions(tmp_path / "reuse.db", kept=kept)
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
        lambda s: setattr(s, "bind", s.bind.engine.connect()),  # the same database, another connection
    ],
    ids=["info", "listener", "autoflush", "expire_on_commit", "bind", "connection"],
)
@pytest.mark.parametrize("kept", [True, False], ids=["kept", "pooled"])
def test_a_session_a_handler_changed_is_not_handed_on(tmp_path: Path, touch, kept: bool) -> None:  # type: ignore[no-untyped-def]
    engine, sessions = sqlite_sessions(tmp_path / "changed.db", kept=kept)
    session = sessions()
    own = session.bind
    touch(session)
    sessions.finish(session, failed=False)
    assert sessions() is not session
    if kept:  # the connection it was made with went with it
        assert isinstance(own, Connection) and own.closed
    engine.dispose()


def test_only_a_sqlite_file_keeps_connections(tmp_path: Path) -> None:
    file = make_engine(f"sqlite:///{tmp_path / 'file.db'}")
    memory = make_engine("sqlite://")
    with postgres_database() as url:
        server = make_engine(url)
        try:
            assert kept_connections(server) is None  # a server process each, bounded by the pool
        finally:
            server.dispose()
    kept = kept_connections(file)
    assert kept is not None and kept.url == file.url
    assert kept_connections(memory) is None  # its pool is a connection per thread already
    file.dispose()
    memory.dispose()


def test_a_threads_calls_share_its_connection_and_leave_the_pool_alone(tmp_path: Path) -> None:
    engine, sessions = sqlite_sessions(tmp_path / "own.db", kept=True)
    first = sessions()
    first.add(Row(name="one"))
    mine = dbapi_connection(first)
    sessions.finish(first, failed=False)
    second = sessions()
    assert second is first and dbapi_connection(second) is mine
    assert second.scalars(select(Row.name)).all() == ["one"]
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    theirs: list[object] = []

    def other_thread() -> None:
        session = sessions()
        theirs.append(dbapi_connection(session))
        sessions.finish(session, failed=False)

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join(timeout=30)
    assert theirs and theirs[0] is not mine
    sessions.finish(second, failed=False)
    engine.dispose()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda c: c.close(),
        lambda c: c.invalidate(),
        # Begun on the connection, beside the session, whose close() leaves it open.
        lambda c: (c.begin(), c.execute(text("INSERT INTO callsessions_row (name) VALUES ('left open')"))),
    ],
    ids=["closed", "invalidated", "left-in-a-transaction"],
)
def test_a_session_whose_connection_a_handler_spoiled_is_replaced(tmp_path: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    engine, sessions = sqlite_sessions(tmp_path / "spoiled.db", kept=True)
    session = sessions()
    own = session.bind
    assert isinstance(own, Connection)
    spoil(own)
    sessions.finish(session, failed=False)
    assert own.closed
    again = sessions()
    assert again is not session
    again.add(Row(name="after"))
    sessions.finish(again, failed=False)
    assert names(engine) == ["after"]  # nothing of the spoiled connection's
    engine.dispose()


def test_a_commit_the_database_refused_leaves_no_transaction_behind(tmp_path: Path) -> None:
    """A deferred foreign key fails at COMMIT itself, after which SQLAlchemy sends no rollback:
    the driver's transaction, and the database's write lock, must not stay with the thread."""
    engine, sessions = sqlite_sessions(tmp_path / "deferred.db", kept=True)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE parent (id INTEGER PRIMARY KEY)"))
        connection.execute(
            text("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
        )
    session = sessions()
    session.execute(text("INSERT INTO child (parent_id) VALUES (99)"))  # no such parent: refused at COMMIT
    with pytest.raises(IntegrityError):
        sessions.finish(session, failed=False)
    other = sqlite3.connect(tmp_path / "deferred.db", timeout=1)  # another writer, which a held lock would stop
    other.execute("INSERT INTO parent (id) VALUES (1)")
    other.commit()
    other.close()
    again = sessions()
    again.execute(text("INSERT INTO child (parent_id) VALUES (1)"))
    sessions.finish(again, failed=False)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT parent_id FROM child")).scalars().all() == [1]
    engine.dispose()


def test_of_two_sessions_at_once_on_a_thread_one_is_kept_and_the_others_connection_closed(tmp_path: Path) -> None:
    engine, sessions = sqlite_sessions(tmp_path / "two.db", kept=True)
    outer = sessions()
    inner = sessions()  # a call made while another runs on the same thread
    assert dbapi_connection(inner) is not dbapi_connection(outer)
    outer_connection = outer.bind
    sessions.finish(inner, failed=False)
    sessions.finish(outer, failed=False)
    assert isinstance(outer_connection, Connection) and outer_connection.closed
    assert sessions() is inner
    engine.dispose()


def test_closing_closes_every_threads_connection_and_hands_out_none_made_before(tmp_path: Path) -> None:
    engine, sessions = sqlite_sessions(tmp_path / "closed.db", kept=True)
    mine = sessions()
    mine.add(Row(name="before"))
    sessions.finish(mine, failed=False)  # kept as this thread's spare
    theirs: list[Session] = []

    def other_thread() -> None:
        session = sessions()
        session.scalars(select(Row.name)).all()
        sessions.finish(session, failed=False)
        theirs.append(session)

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join(timeout=30)
    assert theirs
    connections = [mine.bind, theirs[0].bind]
    assert all(isinstance(c, Connection) and not c.closed for c in connections)
    sessions.close()
    assert all(isinstance(c, Connection) and c.closed for c in connections)
    after = sessions()  # serving again: a new session on a new connection
    assert after is not mine and isinstance(after.bind, Connection) and not after.bind.closed
    assert after.scalars(select(Row.name)).all() == ["before"]
    sessions.finish(after, failed=False)
    sessions.close()
    engine.dispose()


def test_a_server_that_stops_closes_its_database(tmp_path: Path) -> None:
    """The last connection to a WAL database to close checkpoints it and removes its `-wal` file:
    a server stopped after calls on several threads leaves the database file alone."""
    server = ServerProcess(tmp_path).start()
    wal = tmp_path / "data" / "facade.db-wal"
    try:
        headers = {"Authorization": f"Bearer {DEV['atlas']}"}
        with ThreadPoolExecutor(8) as pool:  # more than one worker thread keeps a connection
            results = list(pool.map(lambda _: raw_call(server.url, "projects.project_get", {"project_id": 1}, headers), range(64)))
        assert all(not result.get("isError") for result in results)
        assert wal.exists()  # open connections hold it
    finally:
        server.stop()
    assert "Application shutdown complete" in server.log()  # stopped as asked (uvicorn then re-raises SIGTERM)
    assert not wal.exists(), server.log()


def test_a_served_sqlite_file_runs_calls_on_kept_connections_and_counts_their_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service as built: a read takes no connection from the engine's pool, and an error on
    a kept connection is counted like any other."""
    for name, value in base_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FACADE_DATABASE_URL", raising=False)
    monkeypatch.delenv("FACADE_REDIS_URL", raising=False)
    service = build_service()
    prepare_database(service)
    pooled: list[int] = []
    event.listen(service.engine, "checkout", lambda *_: pooled.append(1))

    def project_get() -> Outcome:
        request = CallRequest("projects.project_get", {"project_id": 1}, bearer=DEV["atlas"], conversation_header="kept")
        return anyio.run(service.calls.run, request)

    def database_errors() -> float:
        samples = service.metrics.render().decode().splitlines()
        return sum(float(line.split()[-1]) for line in samples if line.startswith("facade_database_errors_total{"))

    try:
        assert project_get().status == "ok"
        assert pooled == []
        with service.engine.begin() as connection:
            connection.execute(text("ALTER TABLE projects_project RENAME TO projects_gone"))
        before = database_errors()
        assert project_get().status == "unavailable"
        assert database_errors() == before + 1
    finally:
        service.engine.dispose()

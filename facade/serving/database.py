"""The database engine from `FACADE_DATABASE_URL`, and the sessions opened per call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, make_url, text
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool, QueuePool

from facade.errors import ConfigError, StartupError
from facade.settings import DATABASE_POOL_SIZE, redact_url


def make_engine(url: str, pool_size: int = DATABASE_POOL_SIZE) -> Engine:
    """An engine for `url`, holding at most `pool_size` connections to a server database; SQLite
    gets its folder created, foreign keys on and WAL. A URL SQLAlchemy cannot use is a ConfigError."""
    try:
        return _engine(url, pool_size)
    except (ArgumentError, NoSuchModuleError, ModuleNotFoundError) as exc:
        raise ConfigError(
            f"FACADE_DATABASE_URL={redact_url(url)} cannot be used ({exc}); write sqlite:///PATH or "
            "postgresql+psycopg://user@host/db"
        ) from None


def require_database(engine: Engine) -> None:
    """Connect once, so that a database that is down stops the start with one line, not at the
    first call."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError as exc:
        raise StartupError(unreachable(engine, exc)) from None


def unreachable(engine: Engine, exc: DBAPIError) -> str:
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else type(exc).__name__
    return (
        f"the database at {engine.url.render_as_string(hide_password=True)} cannot be reached ({reason}); "
        "start it, or point FACADE_DATABASE_URL at one that runs"
    )


SQLITE_POOL_SIZE = 15


def _engine(url: str, pool_size: int) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # A file's pool keeps SQLAlchemy's own ceiling (5 pooled + 10 overflow, 15 open at most)
        # but keeps all 15: under 16 clients the overflow ones were opened (three PRAGMAs) and
        # closed again for ~10% of calls, ~13% of a projects.project_get's worker-thread CPU
        # (2026-12, issue 17). An in-memory database keeps its pool of one connection per thread.
        return _sqlite(url, **({"pool_size": SQLITE_POOL_SIZE, "max_overflow": 0} if _sqlite_file(make_url(url)) else {}))
    # A fixed pool, no overflow: connections opened past the pool were closed again on return,
    # and under load that churn cost more than the wait for a pooled one (FACADE_DATABASE_POOL_SIZE).
    return create_engine(url, pool_pre_ping=True, pool_size=pool_size, max_overflow=0)


def _sqlite_file(url: URL) -> bool:
    """Whether `url` is a SQLite database in a file, by SQLAlchemy's own rule: it pools a file's
    connections in a queue and an in-memory database's one per thread."""
    return url.get_backend_name() == "sqlite" and issubclass(url.get_dialect().get_pool_class(url), QueuePool)


def _sqlite(url: str, **pool: Any) -> Engine:
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pool)

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine


def kept_connections(engine: Engine) -> Engine | None:
    """For a SQLite file, the engine of the connections each thread keeps for the calls it runs
    (facade/serving/callsessions.py); None for any other database, whose calls take a pooled
    connection each.

    Taking a connection from the pool and giving it back was ~30 of a `projects.project_get`'s
    ~330 us of server CPU (2026-12-06, issue 17: the same server with and without, side by side).
    A SQLite connection is an open file and a page cache, so each thread that runs calls keeps
    one: at most FACADE_WORKER_THREADS and the event loop's (an async handler's), opened when a
    thread first reads and never through the pool, which stays the others' (approvals, audit,
    the dashboard). A PostgreSQL connection is a server process, bounded by
    FACADE_DATABASE_POOL_SIZE, so its calls stay pooled."""
    if not _sqlite_file(engine.url):
        return None
    return _sqlite(engine.url.render_as_string(hide_password=False), poolclass=NullPool)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)

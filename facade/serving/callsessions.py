"""The database session of each call: opened on the handler's first use of `ctx.db`, committed
when the handler returns, rolled back when it (or the commit) fails, closed either way.

Three things here are about cost, measured on a 2-core machine serving 16 clients that send
2026-07-28 `projects.project_get` (the server on one CPU; an A/B harness of two checkouts in
alternating 3 s blocks, 2026-12-05 and -06, issue 17):

- **Nothing to commit, no commit.** A handler that only read SQLite leaves no transaction open
  (pysqlite begins one before a write, never before a SELECT), so its commit had nothing to do
  but the ORM's own bookkeeping: 13-18 us of a worker thread's ~195 per call (a first version
  of each change, measured alone; the two as committed: 15-23 us of ~370 per call in all). The commit is
  skipped only when it provably does nothing: no pending object, the DBAPI connection says no
  transaction is open (a driver that cannot say, psycopg among them, is committed as before),
  and no commit listener would have run.
- **A closed session is used again.** `Session.close()` resets a session "as though the object
  were brand new" (SQLAlchemy's words for `Session.reset()`), and constructing one per call was
  another 15-30 us. Each thread keeps the session its last call closed and hands it to its next
  call. Not kept: a session whose close failed, one whose `info` a handler wrote, one a handler
  reconfigured (bind, autoflush, expire_on_commit), or one it added an event listener to: those
  are the handler's own state, which a later call must not inherit.
  A handler must not keep `ctx.db` past its call (it never could use it to any end: the session
  is closed), since a later call on the same thread may be using it.
- **A SQLite connection stays with its thread** (`connect`, facade/serving/database.py
  `kept_connections`): a thread's session is made on a connection of its own and the two are
  kept together, so no call takes a connection from the pool and gives it back: 0.38 -> 0.35,
  0.35 -> 0.31 and 0.37 -> 0.35 ms of server CPU per call in three runs (+6% to +12% calls/s). Beside the reasons
  above, a session is not kept when its connection was closed, invalidated, or left inside a
  transaction its close does not end (one begun on the connection itself, or one whose COMMIT
  the database refused); a session not kept closes its connection. When serving ends, `close()`
  closes every connection still kept, so the last one to a WAL database checkpoints it and takes
  its `-wal` and `-shm` files away, as a clean stop should (before, a stopped server left them to
  the next start to recover).
"""

from __future__ import annotations

import contextlib
import operator
import threading
import weakref
from collections.abc import Callable

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, SessionEvents

# Every event a session has, and the listeners added to one session (not its class) for each.
_EVENTS = operator.attrgetter(*(name for name in dir(SessionEvents) if not name.startswith("_") and name != "dispatch"))
_OWN_LISTENERS = operator.attrgetter("listeners")


class CallSessions:
    """Sessions for calls, from `factory`, one spare kept per thread; with `connect`, each new
    session is bound to a connection of its own from it, which goes where its session goes."""

    def __init__(self, factory: Callable[..., Session], connect: Callable[[], Connection] | None = None) -> None:
        self.factory = factory
        self.connect = connect
        self._spare = threading.local()
        self._settings: tuple[object, ...] | None = None  # of the factory's sessions, once one is made
        self._connections: weakref.WeakKeyDictionary[Session, Connection] = weakref.WeakKeyDictionary()
        self._made = threading.Lock()  # over `_connections`, which threads change while one copies it

    def __call__(self) -> Session:
        session = getattr(self._spare, "session", None)
        if session is not None:
            self._spare.session = None
            return session
        if self.connect is None:
            session = self.factory()
        else:
            connection = self.connect()
            session = self.factory(bind=connection)
            with self._made:
                self._connections[session] = connection
        if self._settings is None:  # the bind each session is held to is its own connection, if it has one
            self._settings = _settings(session) if self.connect is None else (None, *_settings(session)[1:])
        return session

    def finish(self, session: Session, *, failed: bool) -> None:
        """End a call's session: commit it (unless `failed` or there is nothing to commit), roll
        it back when the call or the commit failed, close it, keep it for the thread's next call.
        Raises what the commit raised."""
        try:
            if not failed and not nothing_to_commit(session):
                session.commit()
        except BaseException:
            failed = True
            raise
        finally:
            if failed:
                try:
                    session.rollback()
                except DBAPIError:  # the database is away; closing releases the connection
                    pass
            try:
                session.close()
            except BaseException:  # not kept
                self._drop(session)
                raise
            if getattr(self._spare, "session", None) is None and self._reusable(session):
                self._spare.session = session
            else:
                self._drop(session)

    def close(self) -> None:
        """Close every connection a session was made with; no session made before is handed out
        again (each thread's spare stays with the old `threading.local`). For when no call runs:
        the end of serving, after the transport has let its requests finish."""
        self._spare = threading.local()
        with self._made:
            sessions = list(self._connections)
        for session in sessions:
            self._drop(session)

    def _reusable(self, session: Session) -> bool:
        settings = self._settings
        if settings is None:
            return False
        connection = self._connections.get(session)
        if connection is not None:  # bound to its own, which must still be fit for the next call
            if connection.closed or connection.invalidated or _in_transaction(connection):
                return False
            settings = (connection, *settings[1:])
        return _unchanged(session, settings)

    def _drop(self, session: Session) -> None:
        """Let `session` go, closing the connection it was made with."""
        with self._made:
            connection = self._connections.pop(session, None)
        if connection is not None:
            with contextlib.suppress(DBAPIError):  # an unreachable database has closed it already
                connection.close()


def nothing_to_commit(session: Session) -> bool:
    """Whether committing `session` would change nothing and run nothing."""
    if session.new or session.dirty or session.deleted:
        return False
    if not session.in_transaction():
        return True
    dispatch = session.dispatch
    if dispatch.before_commit or dispatch.after_commit:  # SQLAlchemy's own test for listeners
        return False
    dbapi_connection = session.connection().connection.dbapi_connection
    return getattr(dbapi_connection, "in_transaction", True) is False


def _in_transaction(connection: Connection) -> bool:
    """Whether a transaction is open on `connection` after its session closed: one begun on the
    connection itself, or one the driver still holds because its COMMIT failed (a deferred
    foreign key): SQLAlchemy then stops tracking it and sends no rollback, which the pool's
    reset on return used to send."""
    if connection.in_transaction():
        return True
    return getattr(connection.connection.dbapi_connection, "in_transaction", True) is not False


def _settings(session: Session) -> tuple[object, ...]:
    return (session.bind, session.autoflush, session.expire_on_commit)


def _unchanged(session: Session, settings: tuple[object, ...]) -> bool:
    if "info" in vars(session) or _settings(session) != settings:  # `info` is made on first use
        return False
    return not any(map(_OWN_LISTENERS, _EVENTS(session.dispatch)))

"""`facade stdio` answers while its database is being prepared (issue 17).

A desktop client starts the server and waits for `initialize`; on a fresh data folder migrating
and seeding came first, and the answer took 1.5-2 s longer than the start itself. The
preparation now runs in a worker thread while the connection is served: `initialize`, ping,
server discovery and the tool listing (none of which read the database) are answered at once,
and any other request waits until the database is ready. The preparation starts once the
client's greeting is answered (or a request needs the database, or GREETING_SECONDS passed):
started at once, its thread took the interpreter from the answer it raced. When the preparation
fails, every request that needs the database gets a JSON-RPC error saying why, and stderr gets
its line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import structlog
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from facade.errors import FacadeError
from facade.threads import off_loop

log = structlog.get_logger("facade.mcp.preparing")

# What a client sends first and what is served without the database: the handshake, its
# keep-alive, discovery and the catalogue (the registry's, in memory).
WITHOUT_DATABASE = frozenset({"initialize", "ping", "server/discover", "tools/list"})
GREETINGS = frozenset({"initialize", "server/discover"})  # a client's first request, in either era
# How long the preparation waits for a client that says nothing: the greeting of a client that
# started the server comes within milliseconds; a database is prepared whatever happens.
GREETING_SECONDS = 1.0


class Preparation:
    """The database's preparation, run once in a worker thread; `ready` waits for its end."""

    def __init__(self, prepare: Callable[[], None]) -> None:
        self._prepare = prepare
        self._go = anyio.Event()
        self._done = anyio.Event()
        self.failure: str | None = None  # why it failed, in one line; None while fine

    def start(self) -> None:
        """Begin now: the client was answered its greeting, or a request needs the database."""
        self._go.set()

    async def run(self) -> None:
        with anyio.move_on_after(GREETING_SECONDS):
            await self._go.wait()
        try:
            await off_loop(self._prepare)
        except Exception as exc:  # any failure is the waiting requests' answer, not a crash
            self.failure = str(exc) if isinstance(exc, FacadeError) else f"{type(exc).__name__}: {exc}"
            log.error("database.prepare_failed", error=self.failure, exc_info=not isinstance(exc, FacadeError))
        finally:
            self._done.set()

    async def ready(self) -> None:
        """Return once the database is prepared; an MCPError when that failed."""
        self.start()
        await self._done.wait()
        if self.failure is not None:
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"the database could not be prepared ({self.failure}); fix that and start facade stdio again",
            )


class WaitForDatabase:
    """Server middleware: a request that may read the database waits for its preparation."""

    def __init__(self, preparation: Preparation) -> None:
        self.preparation = preparation

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method not in WITHOUT_DATABASE and not ctx.method.startswith("notifications/"):
            await self.preparation.ready()
        try:
            return await call_next(ctx)
        finally:
            if ctx.method in GREETINGS:
                self.preparation.start()


def wait_for(server: Server[Any], preparation: Preparation) -> None:
    """Make `server`'s requests that need the database wait for `preparation` (outermost, so
    that nothing of theirs runs before it)."""
    server.middleware.insert(0, WaitForDatabase(preparation))

"""`facade stdio` answers its client's greeting first, and builds the rest after (issue 17).

A desktop client starts the server and waits for `initialize`. On a fresh data folder migrating
and seeding came first, and the answer took 1.5-2 s longer than the start itself; then the
discovery of the domains and the service (0.5 s of CPU of the 1.34 s used before the answer,
measured 2026-12-04) still came first, though the greeting needs neither: its result is the
server's name, version, instructions and capabilities, and the capabilities follow from the
handlers the server registers, which are the same for every catalogue.

So the start is done in two steps, in a worker thread, while the connection is served: the
service is built (discovery, the agents, the database and Redis answering), then the database is
prepared (the announced tools, migrating, seeding). The greeting (`initialize`, or
`server/discover`) and ping are answered at once; the tool listing once the service is built;
any other request once the database is ready. The work starts once the client's greeting is
answered (or a request needs it, or GREETING_SECONDS passed): started at once, its thread took
the interpreter from the answer it raced.

A service that cannot be built (an unknown agent, a bad setting, the database or Redis down)
stops the process with its one line, as it did before the greeting was answered first. A
preparation that fails is the JSON-RPC error of every request that needs the database, and a
line on stderr; the process goes on answering the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic, TypeVar

import anyio
import mcp_types as types
import structlog
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from facade.errors import FacadeError
from facade.threads import off_loop

log = structlog.get_logger("facade.mcp.preparing")

S = TypeVar("S")

# What a client sends first, in either era, and its keep-alive: answered before anything is built.
GREETINGS = frozenset({"initialize", "server/discover"})
AT_ONCE = GREETINGS | {"ping"}
# Served from the service's memory, without the database: the catalogue.
WITHOUT_DATABASE = frozenset({"tools/list"})
# How long the work waits for a client that says nothing: the greeting of a client that
# started the server comes within milliseconds; the service is built whatever happens.
GREETING_SECONDS = 1.0


def _reason(exc: Exception) -> str:
    return str(exc) if isinstance(exc, FacadeError) else f"{type(exc).__name__}: {exc}"


class Preparation(Generic[S]):
    """The start's work, run once in a worker thread: `build` makes the service, `prepare` then
    readies its database. `service` is the built one; `built` and `ready` wait for each step."""

    def __init__(self, build: Callable[[], S], prepare: Callable[[S], None]) -> None:
        self._build = build
        self._prepare = prepare
        self._go = anyio.Event()
        self._built = anyio.Event()
        self._done = anyio.Event()
        self._service: S | None = None
        self.stopped: Exception | None = None  # why the service could not be built: the process stops
        self.failure: str | None = None  # why the database could not be prepared, in one line; None while fine

    @property
    def service(self) -> S:
        """The built service (only asked for by requests that waited for `built`)."""
        if self._service is None:
            raise RuntimeError("the service is not built yet")
        return self._service

    def start(self) -> None:
        """Begin now: the client was answered its greeting, or a request needs the service."""
        self._go.set()

    async def run(self, lifecycle: Callable[[S], AbstractAsyncContextManager[Any]]) -> None:
        """Build the service and, inside `lifecycle(service)` (the serving lifecycle), prepare the
        database, then stay until cancelled. Returns at once when the service could not be built
        (`stopped` says why): the caller stops the process."""
        with anyio.move_on_after(GREETING_SECONDS):
            await self._go.wait()
        try:
            self._service = await off_loop(self._build)
        except Exception as exc:  # reported by the caller as the start's one line
            self.stopped = exc
            self._built.set()
            self._done.set()
            return
        log.info("start.service_built")
        async with lifecycle(self._service):
            self._built.set()
            try:
                await off_loop(self._prepare, self._service)
            except Exception as exc:  # any failure is the waiting requests' answer, not a crash
                self.failure = _reason(exc)
                log.error("database.prepare_failed", error=self.failure, exc_info=not isinstance(exc, FacadeError))
            finally:
                self._done.set()
            await anyio.sleep_forever()

    async def settled(self) -> None:
        """Return once the service is built, or could not be (`stopped`); begins it if need be."""
        self.start()
        await self._built.wait()

    async def built(self) -> S:
        """The service, once built; an MCPError when it could not be (the process is stopping)."""
        self.start()
        await self._built.wait()
        if self.stopped is not None:
            raise MCPError(code=types.INTERNAL_ERROR, message=f"facade stdio could not start: {_reason(self.stopped)}")
        return self.service

    async def ready(self) -> None:
        """Return once the database is prepared; an MCPError when that failed."""
        await self.built()
        await self._done.wait()
        if self.failure is not None:
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"the database could not be prepared ({self.failure}); fix that and start facade stdio again",
            )


class WaitForPreparation:
    """Server middleware: a request waits for what it needs of the preparation."""

    def __init__(self, preparation: Preparation[Any]) -> None:
        self.preparation = preparation

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        method = ctx.method
        if method in WITHOUT_DATABASE:
            await self.preparation.built()
        elif method not in AT_ONCE and not method.startswith("notifications/"):
            await self.preparation.ready()
        try:
            return await call_next(ctx)
        finally:
            if method in GREETINGS:
                self.preparation.start()


def wait_for(server: Server[Any], preparation: Preparation[Any]) -> None:
    """Make `server`'s requests wait for what they need of `preparation` (outermost, so that
    nothing of theirs runs before it)."""
    server.middleware.insert(0, WaitForPreparation(preparation))

"""The serving lifecycle every transport enters: `facade serve` (HTTP) inside its app's lifespan,
`facade stdio` around its one connection.

While it runs: the change feed (facade/access/changes.py) reaches the transport's sessions as
`list_changed`, changes published by other processes are received (with Redis: an approval on
`facade serve` reaches a `facade stdio` client), and the sweep expires elevations and cards
whose time has passed. When it ends, the served-catalogue trace and the database connections
are closed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

import anyio
import structlog

from facade.affinity import follow_work
from facade.serving.conversations import sweep
from facade.serving.pauses import probe_loop, steady_collector
from facade.serving.service import Service
from facade.threads import most_cpu, off_loop, resize as resize_threads

log = structlog.get_logger("facade.serving.lifecycle")


class ChangeSink(Protocol):
    """Where a transport's sessions hear that their list changed (facade/mcp/fanout.py)."""

    def start(self) -> None:
        """Bind to the running event loop, where every delivery happens."""

    def changed(self, agent: str, conversation: str) -> None:
        """Thread-safe: tell every session of (agent, conversation)."""


@contextlib.asynccontextmanager
async def serving(service: Service, sink: ChangeSink) -> AsyncIterator[None]:
    # What start-up built lives as long as the process: frozen, and the collector tuned, so that
    # no full collection walks it with the event loop stopped (facade/serving/pauses.py).
    with steady_collector(service.metrics):
        # Sync handlers, the health check and the sweeper share one bound (facade/threads.py);
        # anyio's own limiter bounds what the SDK and Starlette hand to threads themselves.
        resize_threads(service.settings.worker_threads, service.settings.agent_worker_threads)
        anyio.to_thread.current_default_thread_limiter().total_tokens = service.settings.worker_threads
        sink.start()
        unsubscribe = service.changes.subscribe(sink.changed)
        try:
            async with anyio.create_task_group() as background:
                background.start_soon(probe_loop, service.metrics)
                background.start_soon(follow_work, most_cpu)  # one CPU while jobs are short
                background.start_soon(sweep_forever, service)
                background.start_soon(service.changes.run)
                yield
                background.cancel_scope.cancel()
        finally:
            unsubscribe()
            service.trace.close()
            service.close()


async def sweep_forever(service: Service) -> None:
    """Expire elevations and cards whose time has passed, and tell their conversations."""
    while True:
        await anyio.sleep(service.settings.sweep_seconds)
        try:
            await off_loop(sweep, service)
        except Exception:  # a sweep that fails (the database or Redis away) is retried next time
            log.warning("sweep.failed", exc_info=True)

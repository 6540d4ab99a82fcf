"""Progress notifications for a call whose client asked for them (`_meta.progressToken`).

A capability reports from its worker thread (facade/kit/progress.py); the reporter only queues
the report, and one task per call sends them in order on the call's own stream — so a handler
never waits on the client, and every report reaches the client before the call's result.
Reports whose progress does not grow are dropped: the spec says progress MUST increase.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import structlog
from mcp.server.context import ServerRequestContext

from facade.kit.progress import Reporter

log = structlog.get_logger("facade.mcp.progress")
_DONE = None


def progress_token(ctx: ServerRequestContext[Any]) -> str | int | None:
    meta = ctx.meta  # a dict: the SDK's TypedDict spells the key `progress_token`, the wire `progressToken`
    if not isinstance(meta, dict):
        return None
    token = meta.get("progress_token", meta.get("progressToken"))
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


@contextlib.asynccontextmanager
async def reporter_for(ctx: ServerRequestContext[Any]) -> AsyncIterator[Reporter | None]:
    """A reporter for the call `ctx` is handling, or None when its client asked for no progress;
    on exit, every queued report has been sent."""
    if progress_token(ctx) is None:
        yield None
        return
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    queue: asyncio.Queue[tuple[float, float | None, str | None] | None] = asyncio.Queue()
    last = [float("-inf")]

    def report(done: float, total: float | None, message: str | None) -> None:
        if done <= last[0]:
            return
        last[0] = done
        if threading.get_ident() == loop_thread:
            queue.put_nowait((done, total, message))
        else:
            loop.call_soon_threadsafe(queue.put_nowait, (done, total, message))

    async def pump() -> None:
        while (item := await queue.get()) is not _DONE:
            try:
                await ctx.session.report_progress(*item)
            except Exception as exc:  # a gone client loses its progress, never its call
                log.info("progress.dropped", error=str(exc))

    sender = asyncio.create_task(pump())
    try:
        yield report
    finally:
        # Reports queued from a worker thread arrive through call_soon_threadsafe; the marker
        # goes the same way, so it lands after every one of them.
        loop.call_soon(queue.put_nowait, _DONE)
        await sender

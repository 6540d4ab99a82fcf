"""The worker threads that run blocking steps off the event loop: one bounded set per process.

A sync handler, its commit and its result's conversion run on a worker thread so that the
event loop never waits on a file or a database. That hop was the largest single cost of a
`tools/call` under load: anyio's `to_thread.run_sync` took 26-28 us of CPU per hop on an idle
2-core machine and 79 us with other work beside it, a `ThreadPoolExecutor` through
`run_in_executor` 12-23 us, this pool 1.9-2.1 us (2026-12-04, 16 tasks hopping with a trivial
function). The difference is bookkeeping: no cancel scope, capacity limiter or
`concurrent.futures.Future` per hop; a job is a tuple on a queue and its answer one
`call_soon_threadsafe`, and answers finished together are taken by the loop in one wake-up.

It keeps what anyio's hop promised: the caller's context variables travel with the job (the
call's deadline, the log context), at most `size` threads run at once and the rest of the
jobs queue, and a caller that is cancelled waits for its job to finish before the
cancellation goes on (a handler is never abandoned mid-write while its caller moves on).
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio

from facade.settings import WORKER_THREADS

T = TypeVar("T")


class _Job:
    __slots__ = ("loop", "future", "context", "fn", "args", "finished", "waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.loop = loop
        self.future: asyncio.Future[Any] = loop.create_future()
        self.context = contextvars.copy_context()
        self.fn = fn
        self.args = args
        self.finished = False  # set on the loop's thread when the thread is done with it
        self.waiter: anyio.Event | None = None  # a cancelled caller waits on it


class Threads:
    """At most `size` jobs run at once, each on a worker thread started when none is idle; the
    rest wait in order. `run` hands one job over and waits for its answer."""

    def __init__(self, size: int = WORKER_THREADS) -> None:
        self.size = size
        self._handover: queue.SimpleQueue[_Job] = queue.SimpleQueue()  # jobs an idle thread was claimed for
        self._waiting: collections.deque[_Job] = collections.deque()  # jobs beyond the bound, oldest first
        self._lock = threading.Lock()
        self._busy = 0
        self._idle = 0
        self._started = 0

    def resize(self, size: int) -> None:
        """At most `size` jobs at once from now on (those running finish first)."""
        with self._lock:
            self.size = size

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on a worker thread, with the caller's context; its value or exception."""
        job = _Job(asyncio.get_running_loop(), fn, args)
        start = False
        with self._lock:
            if self._busy >= self.size:
                self._waiting.append(job)  # a thread that finishes takes it
            else:
                self._busy += 1
                if self._idle:
                    self._idle -= 1
                else:
                    self._started += 1
                    start = True
                self._handover.put(job)
        if start:
            threading.Thread(target=self._work, name=f"facade-worker-{self._started}", daemon=True).start()
        try:
            return await job.future
        except asyncio.CancelledError:
            with self._lock:
                queued = job in self._waiting
                if queued:  # not begun: it never will
                    self._waiting.remove(job)
            if not queued and not job.finished:  # as anyio's hop does: the thread's work ends first
                job.waiter = anyio.Event()
                with anyio.CancelScope(shield=True):
                    await job.waiter.wait()
            raise

    def _work(self) -> None:
        job: _Job | None = None
        while True:
            if job is None:
                job = self._handover.get()
            try:
                outcome: tuple[Any, BaseException | None] = (job.context.run(job.fn, *job.args), None)
            except BaseException as exc:  # noqa: BLE001 - every failure is the caller's to see
                outcome = (None, exc)
            try:
                job.loop.call_soon_threadsafe(_settle, job, *outcome)
            except RuntimeError:  # its loop is closed: nobody waits for this answer any more
                pass
            del outcome
            with self._lock:
                if self._waiting and self._busy <= self.size:
                    job = self._waiting.popleft()  # still busy: the oldest waiting job next
                else:
                    job = None
                    self._busy -= 1
                    self._idle += 1


def _settle(job: _Job, value: Any, exc: BaseException | None) -> None:
    job.finished = True
    if job.waiter is not None:
        job.waiter.set()
    if job.future.done():  # its caller was cancelled
        return
    if exc is None:
        job.future.set_result(value)
    else:
        job.future.set_exception(exc)


_threads = Threads()
# A forked worker process (`facade serve --workers N`) starts with none of its parent's threads.
os.register_at_fork(after_in_child=lambda: globals().__setitem__("_threads", Threads(_threads.size)))


def resize(size: int) -> None:
    """How many worker threads this process may run at once (FACADE_WORKER_THREADS)."""
    _threads.resize(size)


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking `fn(*args)` on one of this process's worker threads and return its value."""
    return await _threads.run(fn, *args)

"""The worker threads that run blocking steps off the event loop: one bounded set per process.

A sync handler, its commit and its result's conversion run on a worker thread so that the
event loop never waits on a file or a database. That hop was the largest single cost of a
`tools/call` under load: anyio's `to_thread.run_sync` took 26-28 us of CPU per hop on an idle
2-core machine and 79 us with other work beside it, a `ThreadPoolExecutor` through
`run_in_executor` 12-23 us, this pool 1.9-2.1 us (2026-12-04, 16 tasks hopping with a trivial
function). The difference is bookkeeping: no cancel scope, capacity limiter or
`concurrent.futures.Future` per hop; a job is one small object on a queue and its answer one
`call_soon_threadsafe`, and answers finished together are taken by the loop in one wake-up.

It keeps what anyio's hop promised: the caller's context variables travel with the job (the
call's deadline, the log context), the thread knows its event loop as anyio's workers do (a
handler can ask its user through `anyio.from_thread.run`), at most `size` jobs run at once and
the rest queue, and a caller that is cancelled waits for its job to finish before the
cancellation goes on (a handler is never abandoned mid-write while its caller moves on). And
one thing anyio's limiter did not: no one agent can hold every thread. Under one shared limit
an agent sending enough slow calls at once (each bounded by the call deadline, 60 s) could take
all 40 threads and every other agent's call would wait behind them; now an agent runs at most
FACADE_AGENT_WORKER_THREADS (8) at once and a freed thread goes to the waiting agent running
the fewest (facade/settings.py has the measurement).
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.lowlevel
from anyio._core._eventloop import threadlocals as anyio_threadlocals  # what anyio's workers set

from facade.settings import AGENT_WORKER_THREADS, WORKER_THREADS

T = TypeVar("T")


class _Job:
    __slots__ = ("loop", "token", "future", "context", "fn", "args", "owner", "finished", "waiter", "clock", "cpu_start")

    def __init__(self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], args: tuple[Any, ...], owner: str) -> None:
        self.loop = loop
        self.token = _token_of(loop)
        self.future: asyncio.Future[Any] = loop.create_future()
        self.context = contextvars.copy_context()
        self.fn = fn
        self.args = args
        self.owner = owner
        self.finished = False  # set on the loop's thread when the thread is done with it
        self.waiter: anyio.Event | None = None  # a cancelled caller waits on it
        self.clock: int | None = None  # the CPU clock of the thread running it, once it runs
        self.cpu_start = 0.0  # that clock when it began


class Threads:
    """At most `size` jobs run at once, each on a worker thread started when none is idle, and
    at most `share` of them for one owner (an agent): one agent's slow calls, however many,
    always leave threads for the others. A job that cannot start waits; a thread that finishes
    takes the oldest waiting job of the owner running the fewest (of those running as few, the
    one served longest ago). `run` hands one job over and waits for its answer."""

    def __init__(self, size: int = WORKER_THREADS, share: int = AGENT_WORKER_THREADS) -> None:
        self.size = size
        self.share = share
        self._handover: queue.SimpleQueue[_Job] = queue.SimpleQueue()  # jobs an idle thread was claimed for
        self._waiting: dict[str, collections.deque[_Job]] = {}  # by owner, oldest first
        self._running: collections.Counter[str] = collections.Counter()
        self._active: set[_Job] = set()  # handed to a thread, not finished
        self._lock = threading.Lock()
        self._busy = 0
        self._idle = 0
        self._started = 0

    def resize(self, size: int, share: int) -> None:
        """At most `size` jobs at once from now on, `share` of them one owner's (those running
        finish first)."""
        with self._lock:
            self.size, self.share = size, share

    async def run(self, fn: Callable[..., T], *args: Any, owner: str = "") -> T:
        """`fn(*args)` on a worker thread, with the caller's context; its value or exception.
        `owner` is whose work it is: an agent's name, the runtime's label, or "" for the
        server's own (health, the sweep, the operator's API); each has its own share."""
        job = _Job(asyncio.get_running_loop(), fn, args, owner)
        start = False
        with self._lock:
            if self._busy >= self.size or self._running[owner] >= self.share:
                self._waiting.setdefault(owner, collections.deque()).append(job)  # a finishing thread takes it
            else:
                self._busy += 1
                self._running[owner] += 1
                if self._idle:
                    self._idle -= 1
                else:
                    self._started += 1
                    start = True
                self._hand(job)
                self._handover.put(job)
        if start:
            threading.Thread(target=self._work, name=f"facade-worker-{self._started}", daemon=True).start()
        try:
            return await job.future
        except asyncio.CancelledError:
            with self._lock:
                waiting = self._waiting.get(owner)
                queued = waiting is not None and job in waiting
                if queued:  # not begun: it never will
                    waiting.remove(job)  # type: ignore[union-attr]
                    if not waiting:
                        del self._waiting[owner]
            if not queued and not job.finished:  # as anyio's hop does: the thread's work ends first
                job.waiter = anyio.Event()
                with anyio.CancelScope(shield=True):
                    await job.waiter.wait()
            raise

    def most_cpu(self) -> float:
        """CPU seconds used so far by the job now running that has used the most (0 when none
        runs). CPU, not time: a job waiting for the GIL, the database or a file uses none."""
        with self._lock:
            running = [(job.clock, job.cpu_start) for job in self._active if job.clock is not None]
        most = 0.0
        for clock, start in running:
            most = max(most, time.clock_gettime(clock) - start)  # type: ignore[arg-type]
        return most

    def _hand(self, job: _Job) -> None:
        """Under the lock: `job` goes to a thread now."""
        self._active.add(job)

    def _next(self) -> _Job | None:
        """Under the lock: the job a thread that just finished one takes, if any may start."""
        if not self._waiting or self._busy > self.size:
            return None
        share = self.share
        owner = min((o for o in self._waiting if self._running[o] < share), key=self._running.__getitem__, default=None)
        if owner is None:
            return None
        waiting = self._waiting.pop(owner)
        job = waiting.popleft()
        if waiting:  # to the back: among owners running as few, the one served longest ago goes first
            self._waiting[owner] = waiting
        self._running[owner] += 1
        self._hand(job)
        return job

    def _work(self) -> None:
        clock = time.pthread_getcpuclockid(threading.get_ident())
        _not_preempting()
        job: _Job | None = None
        while True:
            if job is None:
                job = self._handover.get()
            job.cpu_start = time.clock_gettime(clock)
            job.clock = clock
            # What anyio's own worker threads carry: a handler that asks its user
            # (`anyio.from_thread.run`, facade/kit/asking.py) reaches the job's event loop.
            anyio_threadlocals.current_token = job.token
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
                self._active.discard(job)
                self._running[job.owner] -= 1
                if not self._running[job.owner]:
                    del self._running[job.owner]
                job = self._next()  # still busy with it, when there is one
                if job is None:
                    self._busy -= 1
                    self._idle += 1


def _not_preempting() -> None:
    """This thread, when it wakes, waits for the running one to yield the CPU instead of taking it
    (Linux SCHED_BATCH; its share of the CPU is unchanged). A job handed over wakes its worker
    while the event loop holds the interpreter: taking the CPU then only let the worker find the
    interpreter taken and sleep again. On one CPU with 16 clients (2026-12-05, issue 17): 0.38 ->
    0.04 involuntary context switches per tools/call, files.stat 0.233 -> 0.222-0.225 and
    projects.project_get 0.367 -> 0.350-0.358 ms of CPU per call; with one client, no change."""
    if hasattr(os, "SCHED_BATCH"):
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        except OSError:  # a sandbox may refuse it: the default policy serves as before
            pass


_last_token: tuple[asyncio.AbstractEventLoop | None, Any] = (None, None)


def _token_of(loop: asyncio.AbstractEventLoop) -> Any:
    """anyio's token for the running loop (~2 us to make, so kept for the loop last seen)."""
    global _last_token
    seen, token = _last_token
    if seen is not loop:
        token = anyio.lowlevel.current_token()
        _last_token = (loop, token)
    return token


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
os.register_at_fork(after_in_child=lambda: globals().__setitem__("_threads", Threads(_threads.size, _threads.share)))


def resize(size: int, share: int) -> None:
    """How many jobs this process runs at once (FACADE_WORKER_THREADS), and one agent's share
    of them (FACADE_AGENT_WORKER_THREADS)."""
    _threads.resize(size, share)


def most_cpu() -> float:
    """CPU seconds used by the busiest job now on a worker thread (facade/affinity.py follows it)."""
    return _threads.most_cpu()


async def off_loop(fn: Callable[..., T], *args: Any, owner: str = "") -> T:
    """Run a blocking `fn(*args)` on one of this process's worker threads and return its value;
    `owner` is the agent it runs for (its share of the threads is bounded), "" the server's own."""
    return await _threads.run(fn, *args, owner=owner)

"""The worker threads (facade/threads.py): values and failures come back, context travels, the
bound holds with the rest queued, and a cancelled caller waits for its job."""

from __future__ import annotations

import contextvars
import threading

import anyio
import pytest

from facade.threads import Threads

pytestmark = pytest.mark.anyio
WAIT = 30.0  # generous: these wait on events, never on the machine's speed
where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")


class Held:
    """Jobs that wait for `release`, counting how many run at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = self.peak = 0

    def run(self, i: int) -> int:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        assert self.release.wait(WAIT)
        with self.lock:
            self.running -= 1
        return i


class TestThreads:
    """One bounded set of threads that every blocking step hops to."""

    async def test_value_failure_and_context_come_back(self) -> None:
        threads = Threads(2)
        where.set("the caller's")
        value, seen, name = await threads.run(lambda a, b: (a + b, where.get(), threading.current_thread().name), 2, 3)
        assert (value, seen) == (5, "the caller's")
        assert name != threading.current_thread().name and name.startswith("facade-worker-")
        with pytest.raises(KeyError, match="nope"):
            await threads.run(lambda: {}["nope"])

    async def test_at_most_size_run_at_once_and_the_rest_queue(self) -> None:
        threads = Threads(2)
        jobs = Held()
        results: list[int] = []

        async def one(i: int) -> None:
            results.append(await threads.run(jobs.run, i))

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:
                for i in range(7):
                    tasks.start_soon(one, i)
                while jobs.running < 2:  # two started, five queued behind them
                    await anyio.sleep(0.01)
                jobs.release.set()
        assert sorted(results) == list(range(7))
        assert jobs.peak == 2

    async def test_a_cancelled_caller_waits_for_its_job(self) -> None:
        threads = Threads(1)
        started, release, finished = threading.Event(), threading.Event(), threading.Event()

        def job() -> None:
            started.set()
            assert release.wait(WAIT)
            finished.set()

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:

                async def caller() -> None:
                    try:
                        await threads.run(job)
                    finally:
                        caller_saw.append(finished.is_set())

                caller_saw: list[bool] = []
                tasks.start_soon(caller)
                while not started.is_set():
                    await anyio.sleep(0.01)
                tasks.cancel_scope.cancel()
                release.set()
        assert caller_saw == [True]  # its cancellation went on only once the thread was done
        assert await threads.run(lambda: "the thread is free again") == "the thread is free again"

    async def test_a_smaller_size_bounds_the_next_jobs(self) -> None:
        threads = Threads(3)
        gate = threading.Barrier(3, timeout=WAIT)
        with anyio.fail_after(WAIT):  # three threads started, all idle again afterwards
            async with anyio.create_task_group() as tasks:
                for _ in range(3):
                    tasks.start_soon(threads.run, gate.wait)
        threads.resize(1)
        jobs = Held()
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:
                for i in range(3):
                    tasks.start_soon(threads.run, jobs.run, i)
                while jobs.running == 0:
                    await anyio.sleep(0.01)
                await anyio.sleep(0.05)  # room for a wrongly started second job to show in `peak`
                jobs.release.set()
        assert jobs.peak == 1

    async def test_a_cancelled_caller_whose_job_waits_goes_at_once(self) -> None:
        threads = Threads(1)
        release = threading.Event()
        ran: list[str] = []
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(threads.run, release.wait)
                await anyio.sleep(0)
                with anyio.move_on_after(0.05):  # queued behind the first: cancelled before it begins
                    await threads.run(ran.append, "never")
                release.set()
        assert await threads.run(lambda: "after") == "after"
        assert ran == []

"""The worker threads (facade/threads.py): values and failures come back, context travels, the
bound holds with the rest queued, and a cancelled caller waits for its job."""

from __future__ import annotations

import contextvars
import os
import threading
from functools import partial

import anyio
import anyio.from_thread
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
        threads = Threads(2, share=2)
        where.set("the caller's")
        value, seen, name = await threads.run(lambda a, b: (a + b, where.get(), threading.current_thread().name), 2, 3)
        assert (value, seen) == (5, "the caller's")
        assert name != threading.current_thread().name and name.startswith("facade-worker-")
        with pytest.raises(KeyError, match="nope"):
            await threads.run(lambda: {}["nope"])

    async def test_at_most_size_run_at_once_and_the_rest_queue(self) -> None:
        threads = Threads(2, share=2)
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
        threads = Threads(1, share=1)
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
        threads = Threads(3, share=3)
        gate = threading.Barrier(3, timeout=WAIT)
        with anyio.fail_after(WAIT):  # three threads started, all idle again afterwards
            async with anyio.create_task_group() as tasks:
                for _ in range(3):
                    tasks.start_soon(threads.run, gate.wait)
        threads.resize(1, 1)
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
        threads = Threads(1, share=1)
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

    async def test_one_owner_never_takes_every_thread(self) -> None:
        threads = Threads(4, share=3)
        hostile = Held()
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:
                for i in range(8):
                    tasks.start_soon(partial(threads.run, hostile.run, i, owner="hostile"))
                while hostile.running < 3:
                    await anyio.sleep(0.01)
                # Five of its jobs wait; another agent's call runs at once beside them.
                assert await threads.run(lambda: "answered", owner="other") == "answered"
                assert hostile.running == 3
                hostile.release.set()
        assert hostile.peak == 3

    async def test_a_freed_thread_goes_to_the_owner_running_fewest(self) -> None:
        threads = Threads(2, share=2)
        one, two, order = Held(), Held(), []
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:
                for held in (one, two):
                    tasks.start_soon(partial(threads.run, held.run, 0, owner="busy"))
                while one.running + two.running < 2:
                    await anyio.sleep(0.01)
                for owner in ("busy", "busy", "quiet"):  # queued in this order behind them
                    tasks.start_soon(partial(threads.run, order.append, owner, owner=owner))
                while sum(len(w) for w in threads._waiting.values()) < 3:  # noqa: SLF001
                    await anyio.sleep(0.01)
                one.release.set()  # "busy" still runs one job, "quiet" none: quiet's comes first
                while len(order) < 3:
                    await anyio.sleep(0.01)
                two.release.set()
        assert order == ["quiet", "busy", "busy"]

    async def test_a_handler_can_reach_its_event_loop(self) -> None:
        """What a sync handler that asks its user does (facade/kit/asking.py)."""
        threads = Threads(2, share=2)

        async def on_the_loop() -> str:
            return threading.current_thread().name

        assert await threads.run(anyio.from_thread.run, on_the_loop) == threading.current_thread().name


class TestPolicy:
    """How the worker threads are scheduled."""

    @pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="SCHED_BATCH is Linux's")
    async def test_workers_do_not_preempt_the_loop_and_the_loop_keeps_its_policy(self) -> None:
        threads = Threads(1, share=1)
        policy = await threads.run(os.sched_getscheduler, 0)
        assert policy == os.SCHED_BATCH and os.sched_getscheduler(0) != os.SCHED_BATCH


class TestCpu:
    """`most_cpu`: the CPU the busiest running job has used, which facade/affinity.py follows."""

    async def test_a_waiting_job_uses_none_and_a_computing_one_does(self) -> None:
        pool = Threads(4, 4)
        waiting, computing, done = threading.Event(), threading.Event(), threading.Event()

        def wait() -> None:
            waiting.set()
            assert done.wait(WAIT)

        def compute() -> None:
            computing.set()
            while not done.is_set():
                sum(range(1000))

        async with anyio.create_task_group() as tg:
            tg.start_soon(partial(pool.run, wait))
            assert await anyio.to_thread.run_sync(waiting.wait, WAIT)
            await anyio.sleep(0.05)
            idle = pool.most_cpu()
            tg.start_soon(partial(pool.run, compute))
            assert await anyio.to_thread.run_sync(computing.wait, WAIT)
            with anyio.fail_after(WAIT):
                while pool.most_cpu() < 0.01:  # it grows as the job computes
                    await anyio.sleep(0.01)
            done.set()
        assert idle < 0.01
        with anyio.fail_after(WAIT):  # nothing runs, once the threads have noted their jobs done
            while pool.most_cpu() != 0.0:
                await anyio.sleep(0.01)

"""Each server process on one CPU (`FACADE_CPU_AFFINITY`).

A process runs Python on one CPU at a time (the GIL), yet its event loop and its worker threads
hand the GIL to each other many times per call: every system call a handler makes (a stat, a
database read) lets the waiting loop thread in, and the handler then waits to get it back. With
the threads on two CPUs each handoff is a wake-up across cores; on one CPU it is a switch on the
same core, and most never happen (the handler is back from its system call before the loop
thread has run). Measured in one process, 16 concurrent `files.stat` calls, 2 cores
(2026-12-04): the handler alone 63-94 µs of CPU on the loop; through a worker thread 189-470 µs
with the threads free, 73-103 µs with them on one CPU; a whole call 541-687 µs free, 270-298 µs
on one CPU.

`auto` (the default) pins a lone process to the CPU it is running on when it starts (the
scheduler's choice) unless another server on the machine has claimed that CPU, and then to the
first CPU nobody has claimed (facade/cpu_claims.py says why and how); when every CPU is claimed
it leaves the threads free. It leaves the workers of `--workers N` free: pinned one CPU each,
two workers gained nothing at 16 and 64 clients, and 2025-11-25 calls (which may be forwarded
from one worker to the other) cost 2.4-2.7 ms of CPU instead of 0.8-0.9 (`bench_throughput.py
--short --workers 2`, two runs each; the cause was not found). A list of CPUs (`0,2` or `0-3`)
pins worker N to the N-th CPU listed, for an operator who measured their own case, and claims
it when it is free, so that `auto` servers keep off it; `off` leaves every thread to the
scheduler. Nothing is pinned where the process may use one CPU only, or where the system cannot
pin (not Linux).

One CPU is right while every job on the worker threads is short. A job that runs long may be
doing work that needs no GIL (RE2 over a folder of files, SQLite scanning a table, the kernel
reading a large file): on one CPU it takes turns with the event loop, which then answers
everyone else late. With 48 clients sending a hostile agent's worst cases (scripts/bench_hostile.py)
another agent's probes waited up to 235 ms pinned against 12-34 ms free. So while the process
serves, `follow_work` looks at the worker threads every 25 ms: once a job has used 20 ms of CPU
the threads are freed to every CPU the process may use, and pinned again after a second without
one. CPU, not time: under load a short job waits for the GIL, and measured by the clock 6 of
them passed 20 ms in one benchmark run (21-41 ms), freeing the threads for nothing.

What this does not handle: another process that keeps the chosen CPU busy (anything but a
facade server, which claims), which a pinned server cannot leave. Two signals were tried and
dropped, each firing under the server's own load at 16-64 clients: the event loop's run-queue time
(/proc/thread-self/schedstat: 43-51% of each second, waiting behind its own worker threads; 50%
beside a process spinning on its CPU) and other processes' share of the CPU (/proc/stat's busy
time less this process's own: 45-61%, against 51% beside the spinning process). Such a machine
can give the server a CPU (`1`) or `off`.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable

import anyio
import structlog

from facade import cpu_claims
from facade.errors import StartupError

log = structlog.get_logger("facade.serve")

_LIST = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")
LONG_JOB = 0.020  # CPU seconds a job uses before the threads are freed
CALM = 1.0  # seconds without a long job before they are pinned again
LOOK_EVERY = 0.025


def usable_cpus() -> int:
    """How many CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def parse_cpus(text: str) -> list[int]:
    """`0,2` or `0-3` (taskset's list format) as CPU numbers, in order; ValueError when malformed."""
    if not _LIST.fullmatch(text):
        raise ValueError(f"{text!r} is not a CPU list")
    cpus: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        low, high = int(first), int(last or first)
        if high < low:
            raise ValueError(f"{part!r} runs backwards")
        cpus.extend(c for c in range(low, high + 1) if c not in cpus)
    return cpus


def checked_setting(value: str) -> str:
    """The setting as given, when it is `auto`, `off` or a CPU list (facade/settings.py)."""
    text = value.strip().lower()
    if text in ("auto", "off"):
        return text
    try:
        parse_cpus(text)
    except ValueError as exc:
        raise ValueError(f"must be auto, off or a list of CPU numbers such as 0,2 or 0-3 ({exc})") from None
    return text


def chosen_cpu(setting: str, worker: int, workers: int) -> int | None:
    """The CPU worker `worker` (1-based) of `workers` runs on, or None to leave it free."""
    if setting == "off" or not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if setting != "auto":
        listed = parse_cpus(setting)
        unusable = [c for c in listed if c not in allowed]
        if unusable:
            raise StartupError(
                f"FACADE_CPU_AFFINITY names CPU {unusable[0]}, which this process may not use "
                f"(it may use {','.join(map(str, allowed))}); list those, or set it to auto or off"
            )
        return listed[(worker - 1) % len(listed)]
    if len(allowed) < 2 or workers > 1:
        return None
    current = _current_cpu()
    return current if current in allowed else allowed[0]


class Placement:
    """Where this process's threads run: all on `cpu`, or free on every CPU in `allowed`."""

    def __init__(self, cpu: int, allowed: set[int], worker: int) -> None:
        self.cpu = cpu
        self.allowed = allowed
        self.worker = worker
        self.pinned = False
        self.last_long = float("-inf")
        self.refused = False  # the system refused a change: followed no further (no warning every look)

    def place(self, pinned: bool) -> bool:
        """Every thread (and so every thread started later) on the CPU, or free; False when the
        system refuses."""
        cpus = {self.cpu} if pinned else self.allowed
        try:
            for task in os.listdir("/proc/self/task"):
                try:
                    os.sched_setaffinity(int(task), cpus)
                except ProcessLookupError:  # a thread that ended meanwhile
                    continue
        except OSError as exc:  # a sandbox that forbids it: serving unpinned beats not serving
            log.warning("cpu.not_pinned", cpu=self.cpu, worker=self.worker, error=str(exc))
            self.refused = True
            return False
        self.pinned = pinned
        return True

    def follow(self, most_cpu: float, now: float) -> None:
        """Free the threads while a job runs long; pin them again once none has for `CALM`."""
        if self.refused:
            return
        if most_cpu >= LONG_JOB:
            self.last_long = now
            if self.pinned and self.place(False):
                log.info("cpu.freed", cpu=self.cpu, worker=self.worker, job_cpu_seconds=round(most_cpu, 3))
        elif not self.pinned and now - self.last_long >= CALM and self.place(True):
            log.info("cpu.pinned", cpu=self.cpu, worker=self.worker)


_placement: Placement | None = None


def pin(setting: str, worker: int = 1, workers: int = 1, scope: str = cpu_claims.DEFAULT_SCOPE) -> Placement | None:
    """This process's threads on the chosen CPU (`auto`: one no other server has claimed in
    `scope`, facade/cpu_claims.py), followed by `follow_work` once it serves."""
    global _placement
    cpu = chosen_cpu(setting, worker, workers)
    if cpu is None:
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if setting == "auto":
        cpu = cpu_claims.claim([cpu, *(c for c in allowed if c != cpu)], scope)
        if cpu is None:
            log.info("cpu.not_pinned", worker=worker, scope=scope,
                     reason="no CPU could be claimed: each is held by another server (or a warning above says why not)")
            return None
    else:  # the operator's CPU: pinned whoever holds it, claimed if free so that `auto` servers keep off it
        cpu_claims.take(cpu, scope)
    placement = Placement(cpu, set(allowed), worker)
    if not placement.place(True):
        cpu_claims.release(cpu, scope)  # not serving there: another server may
        return None
    log.info("cpu.pinned", cpu=cpu, worker=worker, setting=setting)
    _placement = placement
    return placement


async def follow_work(most_cpu: Callable[[], float]) -> None:
    """While serving: the threads freed and pinned as the worker threads' jobs run long or not
    (nothing to do when the process was not pinned)."""
    placement = _placement
    if placement is None:
        return
    while True:
        await anyio.sleep(LOOK_EVERY)
        placement.follow(most_cpu(), time.monotonic())


def _current_cpu() -> int | None:
    """The CPU this thread last ran on: field 39 of /proc/thread-self/stat (after the command
    name, which may hold spaces and parentheses, so counted from its closing one)."""
    try:
        with open("/proc/thread-self/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return int(fields[36])
    except (OSError, ValueError, IndexError):
        return None

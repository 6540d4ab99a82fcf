"""What keeps the event loop from stopping while it serves, and what measures that it does not.

Start-up builds what lives as long as the process (the registry, its models and tables, the
announced tools: ~375,000 objects at 449 capabilities). A full collection walked all of it with
the event loop stopped (0.26-0.33 s at 449, 1.2-1.6 s at 10,449: issue 17). While it is built
the collector is off (`facade serve` and `facade stdio` turn it off before their first import);
once it is built it is frozen (`gc.freeze()`: collections no longer look at it), the collector
is turned on, and the young generation is given more room, so that a request's garbage is
collected in fewer, still short, passes.

The lag probe sleeps a fixed interval on the loop and records how late it woke: any pause
(a collection, a handler that blocked the loop, a slow serialization) shows there, in
`facade_event_loop_lag_seconds` and `facade_event_loop_lag_max_seconds` on /metrics.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:  # the command line turns the collector off before it imports SQLAlchemy, which metrics need
    from facade.serving.metrics import Metrics

PROBE_SECONDS = 0.05
# Generation 0 is collected after this many net allocations (CPython's default is 700). A young
# collection's time is set by the cyclic garbage it frees, not by the objects it walks: each
# 2026-07-28 request the SDK answers (a listing; the direct path's calls leave none) leaves ~16 objects in
# cycles (its per-request `ServerRunner` caches a bound method of itself, with the request's
# `Connection`), so at 50,000 each collection freed ~40,000 objects in 22-64 ms of CPU
# (scripts/bench_pauses.py, 2026-12-04). At 5,000 one frees at most ~4,000: 3-6 ms, ten times
# as often. The start-up heap is frozen, so the walks stay short.
THRESHOLDS = (5_000, 20, 20)


@contextlib.contextmanager
def steady_collector(metrics: Metrics) -> Iterator[None]:
    """Freeze what start-up built, tune the collector, turn it on, and time every collection;
    undone when the block ends (a test builds many services in one process). `facade serve`
    and `facade stdio` keep the collector off until here: once on, its first young collection would walk all
    that start-up built, still young (0.12-0.15 s at 449 capabilities, 2026-12-07)."""
    # No collection first: start-up leaves ~1,600 objects of garbage among 375,000 (measured
    # 2026-12-02), not worth the 0.2-0.3 s of CPU a full collection costs before the first answer.
    gc.freeze()
    before = gc.get_threshold()
    was_enabled = gc.isenabled()
    gc.set_threshold(*THRESHOLDS)
    gc.enable()
    started: list[float] = []

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            metrics.gc_pauses.labels(str(info.get("generation", "?"))).observe(time.perf_counter() - started.pop())

    gc.callbacks.append(timed)
    try:
        yield
    finally:
        gc.callbacks.remove(timed)
        gc.set_threshold(*before)
        if not was_enabled:
            gc.disable()


@contextlib.contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """The cyclic collector off while a block builds what lives on: each collection walked all
    that was built so far to free nearly nothing (start-up's domains, ~240,000 objects: 0.3 s of
    discovery's 1.2 s CPU, issue 14; a fresh database's tables and seed rows: 0.57 -> 0.39 s,
    issue 17). Nested blocks leave it to the outermost. With `freeze`, for a command that builds
    the catalogue, reads it and exits (`facade check`), what was built is frozen on the way out,
    so that the collection at interpreter exit does not walk it either: `facade check` at 10,449
    capabilities took 13.2 -> 7.1 s of user CPU with both (2026-12-03). A server does not freeze
    here: the serving lifecycle freezes once everything is built (`steady_collector`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


async def probe_loop(metrics: Metrics, interval: float = PROBE_SECONDS) -> None:
    """Forever: sleep `interval` and record how much later than that the loop woke."""
    while True:
        asleep = time.perf_counter()
        await anyio.sleep(interval)
        metrics.lagged(max(0.0, time.perf_counter() - asleep - interval))

"""Work over a large catalogue spread across the CPUs, for `facade check`.

Two of the gate's checks build a pydantic class or validator per capability (the identity gate
each parsed model, the examples each input model's validator): Python under the GIL, 3.6 s of
a 12 s check at 10,449 capabilities on 2 cores, 2.1 s when split over two processes
(2026-12-06). After discovery the process forks; each child does its share from the heap it
shares with the parent (copy-on-write; `facade check` has frozen it) and sends back what it
found, pickled, through a pipe; the parent does the first share itself. Nothing is forked where
the work is small (a fork and its pipe cost more than 2,000 capabilities' checks save), where
there is one CPU to use, or where the platform cannot fork. A child that fails or dies is not
trusted, and a fork the system refuses is not retried: that share is done in the parent, so the
gate's answer never depends on a fork.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from facade.affinity import usable_cpus

T = TypeVar("T")
R = TypeVar("R")

LEAST = 2_000  # items below which one process does it all
MOST = 8  # processes at most: each child copies the pages it touches of a heap of ~270 MiB at 10,449


def spread(items: Sequence[T], work: Callable[[Sequence[T]], list[R]]) -> list[R]:
    """`work(items)`, computed in shares over the CPUs this process may use, in order. `work`
    must give one result per item and touch nothing outside its share (a child's writes are
    lost with it)."""
    cpus = min(usable_cpus(), MOST)
    if len(items) < LEAST or cpus < 2 or not hasattr(os, "fork") or sys.platform != "linux":
        return work(items)
    size = -(-len(items) // cpus)
    shares = [items[i : i + size] for i in range(0, len(items), size)]
    children = [(share, _fork(work, share)) for share in shares[1:]]
    results = work(shares[0])
    for share, child in children:
        results += work(share) if child is None else _collected(*child, work, share)
    return results


def _fork(work: Callable[[Sequence[T]], list[R]], share: Sequence[T]) -> tuple[int, int] | None:
    """A child working on `share`: its pid and the pipe its findings come through; None when
    no process or pipe can be had (a limit, a sandbox), and the share is done here."""
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return None
    if pid == 0:  # the child: never returns into the caller's code, never runs its exit handlers
        status = 1
        try:
            os.close(reader)
            with os.fdopen(writer, "wb") as out:
                out.write(pickle.dumps(work(share), protocol=pickle.HIGHEST_PROTOCOL))
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    return pid, reader


def _collected(pid: int, reader: int, work: Callable[[Sequence[T]], list[R]], share: Sequence[T]) -> list[R]:
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status == 0:
        try:
            results = pickle.loads(data)
        except Exception:  # noqa: BLE001 - a torn answer is redone below, like a dead child's
            results = None
        if isinstance(results, list) and len(results) == len(share):
            return results
    return work(share)

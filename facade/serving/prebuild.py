"""What `facade serve` builds before it serves: the announced tools, derived on a second CPU
while it prepares its database, and a runtime's list.

On a fresh data folder (or after an upgrade) a start derives every capability's announced tools
(0.45 s of CPU at 449 capabilities) and then migrates and seeds the database (0.7 s, 2026-12-07),
one after the other, on one CPU of two. Here a forked child derives them while the parent goes
on; the child keeps them in the data folder (facade/catalogue/announced.py), and the parent,
once the database is ready, reads them there as a warm start does. The parent's own work and
the child's overlap; nothing else changes.

The child only ever saves work. It says nothing (its output goes nowhere): whatever fails in it
the parent meets again and reports, because when the child leaves nothing usable behind the
parent derives the tools itself, as it did before. No child is made where it cannot help or
is not safe: the tools are already kept, the process may use one CPU only, the system cannot
fork, or another thread is running (a fork copies only the calling thread, and a lock another
thread held would stay held in the child).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from facade.affinity import usable_cpus
from facade.catalogue.served import ServedCatalogues

if TYPE_CHECKING:
    from facade.serving.service import Service


@contextlib.contextmanager
def prebuilding(served: ServedCatalogues) -> Iterator[None]:
    """While the block runs a child derives `served`'s announced tools, when they need deriving
    and a child can help; when the block ends they are built (the child's read, or derived here
    if it left none). If the block fails, the child is stopped and nothing is built."""
    child = _derive_in_child(served) if _child_helps(served) else None
    try:
        yield
    except BaseException:
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        raise
    if child is not None:
        os.waitpid(child, 0)  # its exit status does not matter: build() reads what it kept, or derives
    served.build()


def _child_helps(served: ServedCatalogues) -> bool:
    return (
        hasattr(os, "fork")
        and usable_cpus() > 1
        and threading.active_count() == 1
        and served.needs_deriving()
    )


def _derive_in_child(served: ServedCatalogues) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        served.build()
        code = 0
    finally:
        os._exit(code)  # no atexit handlers, no buffers of the parent's flushed twice


def build_runtime_list(service: Service) -> int | None:
    """A runtime's list (the whole catalogue's tools array) in the latest era, built now rather
    than by the first runtime listing, when a runtime may list (the service accepts a
    runtime token); its size in bytes, or None. Encoding it took that listing 14 ms of its
    27-30 at 10,449 tools (6.8 MB, 2026-12-07); built here it is paid before healthy, and
    once for all `--workers`, which fork after. Only this one array: an agent's view is
    built by its first listing, as an older era's array is (its schemas reshaped, 5-17 ms at
    10,449, and a second copy of 6.8 MB), so a server pays for neither unless someone asks. Every
    agent's view built at start cost 1.3 s and 134 MiB for ten agents disclosing by search
    at 10,449 tools (a review's measurement, 2026-12-07)."""
    if not service.token_book.serves_runtimes:
        return None
    return service.runtime_list().wire().bytes

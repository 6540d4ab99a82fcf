"""`facade serve --workers N`: N server processes accepting on one socket.

The parent builds the service, migrates and seeds the database and binds the port once, then
forks the workers, which share the listening socket (the kernel hands each connection to one of
them). Each worker is a replica as DESIGN "Scale" describes replicas: what must be shared lives
in Redis (sessions' owners, elevations, cards, the list-changed fan-out; FACADE_REDIS_URL is
required), and each worker also listens on a port of its own, registered as its replica URL, so
that a handshake-era request landing on another worker is forwarded to the one holding its
session (facade/mcp/forward.py) instead of back onto the shared port.

The parent only supervises: SIGTERM or SIGINT is passed to every worker; a worker that dies ends
the others and the server exits 1, as a single process that died would.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

import structlog

from facade.cli.listen import bind
from facade.errors import StartupError
from facade.serving.service import Service

log = structlog.get_logger("facade.serve")

# Serves the sockets as worker N (1-based) of this server's workers.
Serve = Callable[[Service, list[socket.socket], int], None]


def check_workers(count: int, redis_url: str | None) -> None:
    if count < 1:
        raise StartupError("--workers must be 1 or more")
    if count > 1 and not redis_url:
        raise StartupError(
            f"--workers {count} needs FACADE_REDIS_URL: sessions, elevations, approval cards and the "
            "list-changed fan-out must be shared by the workers; set FACADE_REDIS_URL=redis://HOST:6379/0 "
            "(or serve with --workers 1)"
        )


def worker_url(service: Service, port: int) -> str:
    """Where the other workers reach this one: the replica URL's host (FACADE_REPLICA_URL, else
    the serving host) with this worker's own port."""
    parts = urlsplit(service.settings.effective_replica_url)
    host = parts.hostname or "127.0.0.1"
    return f"{parts.scheme or 'http'}://{f'[{host}]' if ':' in host else host}:{port}"


def run_workers(service: Service, shared: socket.socket, count: int, serve: Serve) -> int:
    """Forks `count` workers serving `shared` (and a port each); returns the exit status."""
    children: dict[int, int] = {}
    for number in range(1, count + 1):
        own = bind(service.settings.host, 0)
        pid = os.fork()
        if pid == 0:  # the worker
            status = 0
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                # The parent's pooled connections are not this process's to use (SQLAlchemy's
                # recipe for forks); Redis clients reconnect by themselves after a fork.
                service.engine.dispose(close=False)
                url = worker_url(service, own.getsockname()[1])
                mine = dataclasses.replace(service, settings=service.settings.model_copy(update={"replica_url": url}))
                log.info("worker", worker=number, pid=os.getpid(), replica_url=url)
                serve(mine, [shared, own], number)
            except BaseException:  # noqa: BLE001 - a worker's failure is its exit status
                log.exception("worker.failed", worker=number)
                status = 1
            finally:
                os._exit(status)
        own.close()
        children[pid] = number
    return _supervise(children)


def _supervise(children: dict[int, int]) -> int:
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in children:
            _signal(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = 0
    while children:
        try:
            pid, code = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        number = children.pop(pid, None)
        if number is None:
            continue
        if not stopping:
            log.error("worker.died", worker=number, pid=pid, status=os.waitstatus_to_exitcode(code))
            status = 1
            stop(signal.SIGTERM, None)
    return status


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass

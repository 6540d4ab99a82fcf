"""Servers on one machine each on a CPU of their own (`FACADE_CPU_CLAIMS_SCOPE`; facade/affinity.py
pins to the CPU claimed here).

Pinning "the CPU a server starts on" left the choice to the scheduler, and it did not spread
servers: two replicas started one after the other, the second once the first answered, landed on
the same CPU in 5 of 8 tries on 2 cores, and in 15 and 11 of 16 in two runs of
`scripts/bench_replicas.py --starts 16` (2026-12-06; 0 of 16 with claims); two replicas on one
CPU served 0.70-0.90x what one alone served.

A claim is a Unix socket bound to a name in Linux's abstract namespace (`facade-cpu/<scope>/<n>`):
a name only one socket can hold, released by the system however the process ends (a crashed
server leaves no stale claim), and written nowhere, so the data folder stays the only place a
server writes (a first version used lock files in /dev/shm, and had to distrust whatever another
user left at their paths: links, FIFOs, files it could not open). The namespace is the network
namespace's: servers in containers with networks of their own do not see each other's claims.
Any process may hold any name; one that holds them all leaves servers unpinned, never stopped.
"""

from __future__ import annotations

import errno
import re
import socket

import structlog

log = structlog.get_logger("facade.serve")

SCOPE_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
DEFAULT_SCOPE = "facade"

_held: dict[bytes, socket.socket] = {}  # name -> the socket that holds it for this process


def checked_scope(value: str) -> str:
    """The scope as given, when it can be part of a name (facade/settings.py)."""
    if not SCOPE_PATTERN.fullmatch(value):
        raise ValueError("must be 1-64 letters, digits, dots, dashes or underscores, the same for servers that should spread")
    return value


def claim(cpus: list[int], scope: str) -> int | None:
    """The first of `cpus` that no other process holds in `scope`, now held by this one; None
    when every one is held (or the system has no abstract namespace)."""
    for cpu in cpus:
        if take(cpu, scope):
            return cpu
    return None


def take(cpu: int, scope: str) -> bool:
    """Holds `cpu`'s name in `scope` when nobody does; False when somebody does."""
    name = _name(cpu, scope)
    if name in _held:
        return True
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # not inherited across exec (PEP 446)
    except (OSError, AttributeError) as exc:  # no Unix sockets here: nothing to coordinate with
        log.warning("cpu.claim_failed", cpu=cpu, error=str(exc))
        return False
    try:
        sock.bind(name)
    except OSError as exc:
        sock.close()
        if exc.errno != errno.EADDRINUSE:  # not a holder: a system without the abstract namespace
            log.warning("cpu.claim_failed", cpu=cpu, error=str(exc))
        return False
    _held[name] = sock
    return True


def release(cpu: int, scope: str) -> None:
    """Gives a claim back (a server that could not pin where it claimed)."""
    sock = _held.pop(_name(cpu, scope), None)
    if sock is not None:
        sock.close()


def _name(cpu: int, scope: str) -> bytes:
    return f"\0facade-cpu/{scope}/{cpu}".encode()

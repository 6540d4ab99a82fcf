"""Servers on one machine each on a CPU of their own (`FACADE_CPU_CLAIMS_DIR`; facade/affinity.py
pins to the CPU claimed here).

Pinning "the CPU a server starts on" left the choice to the scheduler, and it did not spread
servers: two replicas started one after the other, the second once the first answered, landed on
the same CPU in 5 of 8 tries on 2 cores (2026-12-06; `scripts/bench_replicas.py --starts 8`),
and two replicas on one CPU served less than one alone.

A claim is an advisory lock (flock) on `facade-cpu-N.lock` in a folder every server of the
machine sees: /dev/shm, which a service's private /tmp does not hide, else the temporary folder.
It lasts as long as the file stays open, so the system releases it however the process ends and
a crashed server leaves no stale claim. Servers that share no folder (containers without a
common volume) do not see each other's claims.

The folder is world-writable, so what is found at a lock's path is not trusted: it is opened
without following a link, without blocking (a FIFO there would hang the start), without
creating it unless it is absent (the kernel refuses an O_CREAT open of another user's file in a
sticky folder, which would count the CPU as taken for good), and used only when it is a regular
file with one link (a hard link to another file is not ours to lock or to chmod). Anything else
at that path counts as a claim: someone may be serving there, and a server that cannot claim
still serves, only unpinned.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile

import structlog

log = structlog.get_logger("facade.serve")

_held: dict[int, int] = {}  # CPU -> the open lock file that claims it for this process


def default_folder() -> str:
    """Where servers claim CPUs unless told: /dev/shm, one folder for every process of the
    machine, where there is one; else the temporary folder."""
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def claim(cpus: list[int], folder: str) -> int | None:
    """The first of `cpus` that no other server has claimed in `folder`, now claimed by this
    process; None when every one is (or the folder cannot be used)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        log.warning("cpu.claims_unusable", folder=folder, error=str(exc))
        return None
    for cpu in cpus:
        if take(cpu, folder):
            return cpu
    return None


def take(cpu: int, folder: str) -> bool:
    """Claims `cpu` when nobody holds it; False when somebody does, or may."""
    if cpu in _held:
        return True
    path = os.path.join(folder, f"facade-cpu-{cpu}.lock")
    fd = _open_lock(path)
    if fd is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # needs no write access: any user may claim
    except OSError as exc:
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):  # not a holder: a folder that cannot lock
            log.warning("cpu.claim_failed", cpu=cpu, path=path, error=str(exc))
        return False
    _held[cpu] = fd
    return True


def release(cpu: int) -> None:
    """Gives a claim back (a server that could not pin where it claimed)."""
    fd = _held.pop(cpu, None)
    if fd is not None:
        os.close(fd)


def _open_lock(path: str) -> int | None:
    """The lock file at `path` opened read-only, created when absent; None when what is there
    is not one this process may lock (the module's docstring says why each check)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    for _ in range(3):  # created or removed by another server meanwhile: look again
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            try:
                fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            except OSError as exc:
                log.warning("cpu.claim_unreadable", path=path, error=str(exc))
                return None
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o644)  # readable by every user whatever the umask: theirs to claim too
            return fd
        except OSError as exc:
            log.warning("cpu.claim_unreadable", path=path, error=str(exc))
            return None
        found = os.fstat(fd)
        if stat.S_ISREG(found.st_mode) and found.st_nlink == 1:
            return fd
        os.close(fd)
        log.warning("cpu.claim_unreadable", path=path, error="not a regular file of one link")
        return None
    return None

"""What runs on this machine, read through psutil: the process this domain started for a
service (recognised by pid AND start time, since the OS reuses pids), processes running a
service's command, process details, and listening ports. Nothing here signals a process."""

from __future__ import annotations

import os
from pathlib import Path
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

import psutil

from domains.services.tables import Service

T = TypeVar("T")

# psutil's start time of one process reads the same to ~1/100 s (clock ticks) in every reader.
SAME_PROCESS_SECONDS = 0.05
MAX_CMDLINE = 300  # characters of a command line shown in lists


def owned(service: Service) -> psutil.Process | None:
    """The live process this domain started for `service`, or None (never started, exited,
    or its pid now belongs to another process)."""
    if service.pid is None or service.pid_created is None:
        return None
    try:
        proc = psutil.Process(service.pid)
        if abs(proc.create_time() - service.pid_created) > SAME_PROCESS_SECONDS:
            return None
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    return proc


def running_command(argv: list[str], cwd: Path, exclude: int | None = None) -> list[psutil.Process]:
    """Live processes whose command line is `argv` (the program compared by file name, so that
    `python3` matches `/usr/bin/python3`) running in the service's own folder `cwd`: the same
    command run elsewhere (another sandbox, another user's `sleep 300`) is not this service."""
    found: list[psutil.Process] = []
    for proc in psutil.process_iter(["pid", "cmdline", "status", "cwd"]):
        info = proc.info
        if info["pid"] == exclude or info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if same_command(info.get("cmdline") or [], argv) and info.get("cwd") and Path(info["cwd"]) == cwd:
            found.append(proc)
    return found


def same_command(cmdline: list[str], argv: list[str]) -> bool:
    if len(cmdline) != len(argv) or not argv:
        return False
    return os.path.basename(cmdline[0]) == os.path.basename(argv[0]) and cmdline[1:] == argv[1:]


def iso(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).isoformat() if epoch else None


def _read(read: Callable[[], T]) -> T | None:
    """One attribute of a process, or None when the OS will not tell (another user's process)
    or the process has just exited."""
    try:
        return read()
    except (psutil.AccessDenied, psutil.NoSuchProcess, psutil.ZombieProcess, OSError):
        return None


def summary(proc: psutil.Process) -> dict[str, Any]:
    """The short form the lists use."""
    with proc.oneshot():
        memory = _read(proc.memory_info)
        cmdline = _read(proc.cmdline) or []
        return {
            "pid": proc.pid,
            "name": _read(proc.name),
            "user": _read(proc.username),
            "status": _read(proc.status),
            "started": iso(_read(proc.create_time)),
            "memory_rss_bytes": memory.rss if memory else None,
            "command": " ".join(cmdline)[:MAX_CMDLINE],
        }


def details(proc: psutil.Process) -> dict[str, Any]:
    """Everything a diagnosis needs; the environment is left out (it holds secrets)."""
    with proc.oneshot():
        base = summary(proc)
        times = _read(proc.cpu_times)
        memory = _read(proc.memory_info)
        parent = _read(proc.parent)
        children = _read(proc.children) or []
        files = _read(proc.open_files) or []
        connections = _read(partial(proc.net_connections, kind="inet")) or []
        return {
            **base,
            "command": _read(proc.cmdline),
            "executable": _read(proc.exe),
            "cwd": _read(proc.cwd),
            "parent": {"pid": parent.pid, "name": _read(parent.name)} if parent else None,
            "children": [c.pid for c in children],
            "threads": _read(proc.num_threads),
            "cpu_user_seconds": times.user if times else None,
            "cpu_system_seconds": times.system if times else None,
            "memory_vms_bytes": memory.vms if memory else None,
            "nice": _read(proc.nice),
            "open_files": [f.path for f in files][:50],
            "connections": [connection(c) for c in connections][:50],
        }


def connection(c: Any) -> dict[str, Any]:
    return {
        "family": "ipv6" if c.family == socket.AF_INET6 else "ipv4",
        "type": "udp" if c.type == socket.SOCK_DGRAM else "tcp",
        "local": f"{c.laddr.ip}:{c.laddr.port}" if c.laddr else None,
        "remote": f"{c.raddr.ip}:{c.raddr.port}" if c.raddr else None,
        "status": c.status,
    }


def processes() -> Iterator[psutil.Process]:
    yield from psutil.process_iter()


def listening() -> tuple[list[dict[str, Any]], bool]:
    """Listening TCP sockets with the pid that owns each, and whether the list is complete:
    the machine-wide table needs privileges on some systems, and another user's sockets come
    without a pid."""
    entries: list[tuple[Any, int | None]]
    try:
        entries = [(c, c.pid) for c in psutil.net_connections(kind="tcp")]
        complete = True
    except psutil.AccessDenied:
        # Best effort: the sockets of the processes this user may look into.
        entries, complete = [], False
        for proc in psutil.process_iter():
            entries.extend((c, proc.pid) for c in _read(partial(proc.net_connections, kind="tcp")) or [])
    rows = {
        (c.laddr.ip, c.laddr.port, pid): {
            "address": c.laddr.ip,
            "port": c.laddr.port,
            "family": "ipv6" if c.family == socket.AF_INET6 else "ipv4",
            "pid": pid,
        }
        for c, pid in entries
        if c.status == psutil.CONN_LISTEN and c.laddr
    }
    complete = complete and all(r["pid"] is not None for r in rows.values())
    return sorted(rows.values(), key=lambda r: (r["port"], r["address"])), complete


def name_of(pid: int | None) -> str | None:
    if pid is None:
        return None
    return _read(lambda: psutil.Process(pid).name())

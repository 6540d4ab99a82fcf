"""Facts about the machine the server runs on, read with psutil. Read-only: nothing here
changes, stops or signals anything."""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import time
from datetime import UTC, datetime
from typing import Any

import psutil

from domains.hosts import inputs
from facade.kit import CallContext, Toolset

Result = dict[str, Any]
tools = Toolset()
full_tools = Toolset()  # listed after the probes' port scan

# The families psutil reports addresses in, by the names a reader expects.
FAMILIES = {socket.AF_INET: "ipv4", socket.AF_INET6: "ipv6", psutil.AF_LINK: "mac"}
# CPU shares are measured over this window: long enough that one scheduler tick does not
# dominate the reading, short enough to keep a tool call quick.
CPU_SAMPLE_SECONDS = 0.25


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def _distribution() -> str | None:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME")
    except OSError:
        return None


def _load_average() -> dict[str, float] | None:
    try:
        one, five, fifteen = psutil.getloadavg()
    except (OSError, AttributeError):
        return None
    return {"1m": round(one, 2), "5m": round(five, 2), "15m": round(fifteen, 2)}


def system() -> Result:
    boot = psutil.boot_time()
    return {
        "hostname": socket.gethostname(),
        "os": platform.system(),
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "distribution": _distribution(),
        "architecture": platform.machine(),
        "cpu": {
            "logical": psutil.cpu_count(),
            "physical": psutil.cpu_count(logical=False),
            "percent": psutil.cpu_percent(interval=CPU_SAMPLE_SECONDS),
        },
        "load_average": _load_average(),
        "boot_time": _iso(boot),
        "uptime_seconds": int(time.time() - boot),
        "process_count": len(psutil.pids()),
    }


def memory() -> Result:
    ram, swap = psutil.virtual_memory(), psutil.swap_memory()
    return {
        "memory": {
            "total_bytes": ram.total,
            "available_bytes": ram.available,
            "used_bytes": ram.used,
            "free_bytes": ram.free,
            "percent_used": ram.percent,
        },
        "swap": {
            "total_bytes": swap.total,
            "used_bytes": swap.used,
            "free_bytes": swap.free,
            "percent_used": swap.percent,
        },
    }


def _usage(mountpoint: str) -> Result:
    try:
        usage = psutil.disk_usage(mountpoint)
    except OSError as exc:  # a mount the server may not read, or one gone since listing
        return {"usage": None, "error": exc.strerror or str(exc)}
    return {
        "usage": {
            "total_bytes": usage.total,
            "used_bytes": usage.used,
            "free_bytes": usage.free,
            "percent_used": usage.percent,
        }
    }


def disks(limit: int, offset: int) -> Result:
    partitions = psutil.disk_partitions(all=False)
    page = partitions[offset : offset + limit]
    return {
        "disks": [
            {
                "device": p.device,
                "mountpoint": p.mountpoint,
                "fstype": p.fstype,
                "options": p.opts,
                **_usage(p.mountpoint),
            }
            for p in page
        ],
        "total": len(partitions),
    }


def interfaces(limit: int, offset: int) -> Result:
    addresses, stats = psutil.net_if_addrs(), psutil.net_if_stats()
    counters = psutil.net_io_counters(pernic=True)
    names = sorted(addresses)
    listed = []
    for name in names[offset : offset + limit]:
        stat, io = stats.get(name), counters.get(name)
        listed.append(
            {
                "name": name,
                "up": stat.isup if stat else None,
                "mtu": stat.mtu if stat else None,
                "speed_mbps": (stat.speed or None) if stat else None,
                "addresses": [
                    {
                        "family": FAMILIES.get(a.family, str(a.family)),
                        "address": a.address,
                        "netmask": a.netmask,
                        "broadcast": a.broadcast,
                    }
                    for a in addresses[name]
                ],
                "traffic": None
                if io is None
                else {
                    "bytes_sent": io.bytes_sent,
                    "bytes_received": io.bytes_recv,
                    "packets_sent": io.packets_sent,
                    "packets_received": io.packets_recv,
                    "errors_in": io.errin,
                    "errors_out": io.errout,
                    "dropped_in": io.dropin,
                    "dropped_out": io.dropout,
                },
            }
        )
    return {"interfaces": listed, "total": len(names)}


def top_processes(sort_by: str, limit: int) -> Result:
    """The busiest processes; CPU is measured over a short sample, as a single reading of a
    process's CPU share has nothing to compare against."""
    processes = list(psutil.process_iter(["pid", "name", "username", "status", "create_time"]))
    for proc in processes:
        with contextlib.suppress(psutil.Error):  # a process gone already is simply not listed
            proc.cpu_percent(None)  # starts each process's sample
    time.sleep(CPU_SAMPLE_SECONDS)
    rows: list[Result] = []
    for proc in processes:
        try:
            with proc.oneshot():
                memory_info = proc.memory_info()
                rows.append(
                    {
                        "pid": proc.pid,
                        "name": proc.info["name"],
                        "user": proc.info["username"],
                        "status": proc.info["status"],
                        "cpu_percent": round(proc.cpu_percent(None), 1),
                        "memory_percent": round(proc.memory_percent(), 2),
                        "rss_bytes": memory_info.rss,
                        "started_at": _iso(proc.info["create_time"]) if proc.info["create_time"] else None,
                    }
                )
        except psutil.Error:  # gone or not ours to read since the listing: not part of the answer
            continue
    key = "cpu_percent" if sort_by == "cpu" else "rss_bytes"
    rows.sort(key=lambda r: (r[key], r["pid"]), reverse=True)
    return {"sort_by": sort_by, "processes": rows[:limit], "process_count": len(rows), "cpu_count": os.cpu_count()}


@tools.capability("system_status", read_only=True, example={})
def system_status(ctx: CallContext, args: inputs.NoArgs) -> Result:
    """Report this machine's OS, kernel, CPUs, load average and uptime."""
    return system()


@tools.capability("memory_status", read_only=True, example={})
def memory_status(ctx: CallContext, args: inputs.NoArgs) -> Result:
    """Report this machine's memory and swap use."""
    return memory()


@tools.capability("disk_list", read_only=True, example={})
def disk_list(ctx: CallContext, args: inputs.LocalPage) -> Result:
    """List this machine's mounted disks and how full they are."""
    return disks(args.limit, args.offset)


@full_tools.capability("network_interfaces", read_only=True, example={})
def network_interfaces(ctx: CallContext, args: inputs.LocalPage) -> Result:
    """List this machine's network interfaces with their addresses and traffic counters."""
    return interfaces(args.limit, args.offset)


@full_tools.capability("process_top", read_only=True, example={"sort_by": "memory", "limit": 5})
def process_top(ctx: CallContext, args: inputs.ProcessTop) -> Result:
    """List this machine's busiest processes by CPU or memory."""
    return top_processes(args.sort_by, args.limit)

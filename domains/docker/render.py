"""Engine API objects as the short, JSON-friendly summaries the list and stats tools return.

The raw objects are large (an inspected container runs to kilobytes); the summaries keep what a
reader acts on, and the inspect tools hand out the rest."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def short_id(value: str | None) -> str | None:
    """The 12-character id the docker CLI shows (an image id loses its `sha256:` prefix)."""
    return value.split(":")[-1][:12] if value else None


def epoch(value: Any) -> str | None:
    """An epoch-seconds timestamp as ISO 8601 UTC."""
    if not isinstance(value, int | float) or value <= 0:
        return None
    return datetime.fromtimestamp(value, UTC).isoformat()


def port(p: dict[str, Any]) -> str:
    inside = f"{p.get('PrivatePort')}/{p.get('Type', 'tcp')}"
    if p.get("PublicPort"):
        return f"{p.get('IP') or '0.0.0.0'}:{p['PublicPort']}->{inside}"
    return inside


def container(c: dict[str, Any]) -> dict[str, Any]:
    names = [n.lstrip("/") for n in c.get("Names") or []]
    return {
        "id": short_id(c.get("Id")),
        "name": names[0] if names else None,
        "image": c.get("Image"),
        "state": c.get("State"),
        "status": c.get("Status"),
        "created": epoch(c.get("Created")),
        "ports": [port(p) for p in c.get("Ports") or []],
    }


def image(i: dict[str, Any]) -> dict[str, Any]:
    tags = [t for t in i.get("RepoTags") or [] if t != "<none>:<none>"]
    return {
        "id": short_id(i.get("Id")),
        "tags": tags,
        "size_bytes": i.get("Size"),
        "created": epoch(i.get("Created")),
        "containers": i.get("Containers"),
    }


def network(n: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": short_id(n.get("Id")),
        "name": n.get("Name"),
        "driver": n.get("Driver"),
        "scope": n.get("Scope"),
        "internal": bool(n.get("Internal")),
        "created": n.get("Created"),
    }


def volume(v: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": v.get("Name"),
        "driver": v.get("Driver"),
        "mountpoint": v.get("Mountpoint"),
        "scope": v.get("Scope"),
        "created": v.get("CreatedAt"),
    }


def stats(s: dict[str, Any]) -> dict[str, Any]:
    """CPU as the docker CLI computes it (the share of the host's CPUs since the previous sample),
    memory without the page cache, and network and block I/O totals."""
    cpu, pre = s.get("cpu_stats") or {}, s.get("precpu_stats") or {}
    cpu_delta = _get(cpu, "cpu_usage", "total_usage") - _get(pre, "cpu_usage", "total_usage")
    system_delta = (cpu.get("system_cpu_usage") or 0) - (pre.get("system_cpu_usage") or 0)
    cpus = cpu.get("online_cpus") or len(_get(cpu, "cpu_usage", "percpu_usage", default=[])) or 1
    cpu_percent = round(cpu_delta / system_delta * cpus * 100, 2) if cpu_delta > 0 and system_delta > 0 else 0.0
    memory = s.get("memory_stats") or {}
    cache = _get(memory, "stats", "inactive_file") or _get(memory, "stats", "total_inactive_file")
    used = max((memory.get("usage") or 0) - cache, 0)
    limit = memory.get("limit") or 0
    networks = (s.get("networks") or {}).values()
    blkio = _get(s, "blkio_stats", "io_service_bytes_recursive", default=None) or []
    return {
        "read_at": s.get("read"),
        "cpu_percent": cpu_percent,
        "memory_bytes": used,
        "memory_limit_bytes": limit,
        "memory_percent": round(used / limit * 100, 2) if limit else None,
        "network_rx_bytes": sum(n.get("rx_bytes", 0) for n in networks),
        "network_tx_bytes": sum(n.get("tx_bytes", 0) for n in networks),
        "block_read_bytes": sum(b.get("value", 0) for b in blkio if str(b.get("op")).lower() == "read"),
        "block_write_bytes": sum(b.get("value", 0) for b in blkio if str(b.get("op")).lower() == "write"),
        "pids": _get(s, "pids_stats", "current", default=None),
    }


def _get(data: dict[str, Any], *keys: str, default: Any = 0) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data or data[key] is None:
            return default
        data = data[key]
    return data


def engine(version: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": info.get("Name"),
        "server_version": version.get("Version") or info.get("ServerVersion"),
        "api_version": version.get("ApiVersion"),
        "min_api_version": version.get("MinAPIVersion"),
        "os": version.get("Os"),
        "arch": version.get("Arch"),
        "kernel": version.get("KernelVersion") or info.get("KernelVersion"),
        "operating_system": info.get("OperatingSystem"),
        "cpus": info.get("NCPU"),
        "memory_bytes": info.get("MemTotal"),
        "storage_driver": info.get("Driver"),
        "root_dir": info.get("DockerRootDir"),
        "containers": {
            "total": info.get("Containers"),
            "running": info.get("ContainersRunning"),
            "paused": info.get("ContainersPaused"),
            "stopped": info.get("ContainersStopped"),
        },
        "images": info.get("Images"),
        "warnings": info.get("Warnings") or [],
    }

"""What each kind of check measures, and the rules written once per kind: which targets are
valid, which thresholds make sense, and how a measured value becomes ok, warn or critical."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from domains.monitoring import sandbox
from facade.kit import InvalidRequest

Direction = Literal["above", "below"]


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One kind of check.

    Attributes:
        unit: the unit of the measured value.
        direction: `above` when a value at or above a threshold is bad (latency, usage, age),
            `below` when a value under it is bad (a minimum number of processes).
        warn, critical: the thresholds a new check gets when it names none.
        example: a valid target, for messages.
    """

    unit: str
    direction: Direction
    warn: float | None
    critical: float | None
    example: str


KINDS: dict[str, KindSpec] = {
    "tcp": KindSpec("ms", "above", 200, 1000, "127.0.0.1:5432"),
    "http": KindSpec("ms", "above", 500, 2000, "http://127.0.0.1:8765/healthz"),
    "disk": KindSpec("percent", "above", 80, 90, "/"),
    "process": KindSpec("processes", "below", None, 1, "postgres"),
    "file_age": KindSpec("seconds", "above", 90_000, 180_000, "heartbeats/nightly-backup.ok"),
}


def tcp_address(target: str) -> tuple[str, int]:
    """`host:port` (or `[v6]:port`) split into its parts; ValueError when malformed."""
    host, sep, port = target.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(target)
    return host, int(port)


def normal_target(kind: str, target: str) -> str:
    """The target as stored, or InvalidRequest (Forbidden for a file outside the sandbox)
    naming a valid one."""
    spec = KINDS[kind]
    target = target.strip()
    bad = InvalidRequest(f"{target!r} is not a valid {kind} target; give one like {spec.example!r}")
    if kind == "tcp":
        try:
            tcp_address(target)
        except ValueError:
            raise bad from None
    elif kind == "http":
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise bad
    elif kind == "disk":
        if not target.startswith("/") or "\x00" in target:
            raise InvalidRequest(f"{target!r} is not an absolute path; a disk check measures a mount such as '/'")
    elif kind == "process":
        if "/" in target or not target:
            raise InvalidRequest(f"{target!r} is not a process name; give the name, e.g. {spec.example!r}")
    else:  # file_age: a file of the sandbox, stored relative to its root
        return sandbox.display(sandbox.resolve(target))
    return target


def check_thresholds(kind: str, warn: float | None, critical: float | None) -> None:
    spec = KINDS[kind]
    if kind in ("disk", "process", "file_age") and warn is None and critical is None:
        raise InvalidRequest(f"a {kind} check needs a warn_threshold or a critical_threshold ({spec.unit})")
    if warn is None or critical is None:
        return
    if spec.direction == "above" and warn > critical:
        raise InvalidRequest(
            f"warn_threshold {warn} is above critical_threshold {critical}; for {kind} a higher value is worse, "
            "so warn must not exceed critical"
        )
    if spec.direction == "below" and warn < critical:
        raise InvalidRequest(
            f"warn_threshold {warn} is below critical_threshold {critical}; for {kind} a lower value is worse, "
            "so warn must not be under critical"
        )


def verdict(kind: str, value: float, warn: float | None, critical: float | None) -> str:
    """ok, warn or critical for a measured value."""

    def crossed(threshold: float | None) -> bool:
        if threshold is None:
            return False
        return value >= threshold if KINDS[kind].direction == "above" else value < threshold

    if crossed(critical):
        return "critical"
    return "warn" if crossed(warn) else "ok"

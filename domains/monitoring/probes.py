"""Probes of the real machine: one function per kind, each returning what it measured. A target
that cannot be reached or measured is a measurement too (`failed`), never an exception: for a
monitor, "down" is data."""

from __future__ import annotations

import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime

import psutil

from domains.monitoring import sandbox
from domains.monitoring.kinds import tcp_address
from facade.kit import DomainError


@dataclass(frozen=True, slots=True)
class Measurement:
    """What one probe saw: the value (None when nothing could be measured), a line for people,
    whether the target failed outright (unreachable, an HTTP error, a missing file), and how
    long the probe took."""

    value: float | None
    detail: str
    failed: bool
    duration_ms: float


def probe(kind: str, target: str, timeout: float) -> Measurement:
    started = time.perf_counter()
    value, detail, failed = PROBES[kind](target, timeout)
    return Measurement(value, detail, failed, round((time.perf_counter() - started) * 1000, 3))


Outcome = tuple[float | None, str, bool]


def _tcp(target: str, timeout: float) -> Outcome:
    host, port = tcp_address(target)
    started = time.perf_counter()
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        return None, f"unreachable: {exc.strerror or exc}", True
    latency = round((time.perf_counter() - started) * 1000, 3)
    return latency, f"connected in {latency} ms", False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is the target's answer: following it would probe some other host."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


# No proxies: a monitor must measure the target itself, not whatever proxy the environment names.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def _http(target: str, timeout: float) -> Outcome:
    started = time.perf_counter()
    try:
        with _OPENER.open(urllib.request.Request(target, method="GET"), timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
        exc.close()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return None, f"unreachable: {getattr(reason, 'strerror', None) or reason}", True
    latency = round((time.perf_counter() - started) * 1000, 3)
    if status >= 400:
        return latency, f"HTTP {status} in {latency} ms", True
    return latency, f"HTTP {status} in {latency} ms", False


def _disk(target: str, timeout: float) -> Outcome:
    try:
        usage = psutil.disk_usage(target)
    except OSError as exc:
        return None, f"cannot measure {target}: {exc.strerror or exc}", True
    free_gib = usage.free / 2**30
    return float(usage.percent), f"{usage.percent}% used, {free_gib:.1f} GiB free", False


def _process(target: str, timeout: float) -> Outcome:
    pids: list[int] = []
    for proc in psutil.process_iter(["name"]):
        name = proc.info.get("name") or ""
        if name.startswith(target):
            pids.append(proc.pid)
    shown = ", ".join(map(str, pids[:10])) + (", ..." if len(pids) > 10 else "")
    return float(len(pids)), f"{len(pids)} processes named {target}*" + (f" (pids {shown})" if pids else ""), False


def _file_age(target: str, timeout: float) -> Outcome:
    try:
        modified = os.stat(sandbox.resolve(target)).st_mtime
    except DomainError as exc:  # a link planted after the check was created now leads outside
        return None, str(exc), True
    except OSError as exc:
        return None, f"{target} cannot be read: {exc.strerror or exc}", True
    age = max(0.0, round(datetime.now(UTC).timestamp() - modified, 1))
    changed = datetime.fromtimestamp(modified, UTC).isoformat(timespec="seconds")
    return age, f"last changed {changed}, {age:.0f} s ago", False


PROBES = {"tcp": _tcp, "http": _http, "disk": _disk, "process": _process, "file_age": _file_age}

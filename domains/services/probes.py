"""Probes of a service from the outside: is its port accepting connections, does its health URL
answer. Both only ever contact this machine, and both report failure as data, not as an error."""

from __future__ import annotations

import socket
import ssl
import time
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import httpx2

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@cache
def _tls() -> ssl.SSLContext:
    """One verifying context for every probe: httpx spends ~50 ms loading certificates for each
    new one (measured 2026-11)."""
    return ssl.create_default_context()


def is_loopback_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_HOSTS and parts.port != 0
    except ValueError:  # a malformed port or bracket
        return False


def tcp(port: int, timeout: float) -> dict[str, Any]:
    """Whether something accepts TCP connections on 127.0.0.1:`port`."""
    began = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            pass
    except OSError as exc:
        return {"port": port, "reachable": False, "error": exc.strerror or type(exc).__name__}
    return {"port": port, "reachable": True, "elapsed_ms": round((time.monotonic() - began) * 1000, 1)}


def http(url: str, timeout: float) -> dict[str, Any]:
    """The health URL's answer: reachable, status code, and healthy (a 2xx or 3xx)."""
    if not is_loopback_url(url):
        # Definitions are checked when written; this guards rows written before that rule.
        return {"url": url, "reachable": False, "error": "not probed: a health URL must point at this machine"}
    began = time.monotonic()
    try:
        # trust_env=False: a proxy from the environment must never see (or redirect) the probe.
        response = httpx2.get(url, timeout=timeout, follow_redirects=False, trust_env=False, verify=_tls())
    except httpx2.HTTPError as exc:
        return {"url": url, "reachable": False, "error": str(exc) or type(exc).__name__}
    return {
        "url": url,
        "reachable": True,
        "status_code": response.status_code,
        "healthy": 200 <= response.status_code < 400,
        "elapsed_ms": round((time.monotonic() - began) * 1000, 1),
    }

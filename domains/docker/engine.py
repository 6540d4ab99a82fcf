"""The Engine API client: one function builds every request, and one place turns the engine's
answers (and its absence) into domain errors that say what to change.

The engine is reached over its unix socket or over TCP, as FACADE_DOCKER_HOST says; a fresh
client per call keeps no connection (or setting) alive between calls.
"""

from __future__ import annotations

import json
import ssl
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote, urlsplit

import httpx2

from domains.docker.settings import DockerSettings, settings
from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable

Params = Mapping[str, str | int | bool]


@dataclass(frozen=True, slots=True)
class Hints:
    """What the caller should do when the engine says 404 or 409 to this request, or is slow."""

    missing: str | None = None
    conflict: str | None = None
    slow: str = "retry later, or an operator may raise FACADE_DOCKER_TIMEOUT"


@dataclass(frozen=True, slots=True)
class Answer:
    """An engine answer that was not an error."""

    status: int
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            raise Unavailable(
                "the docker engine answered with something that is not Engine API JSON; "
                "check that FACADE_DOCKER_HOST points at a Docker Engine"
            ) from None


@cache
def _tls() -> ssl.SSLContext:
    """Every address here is plain HTTP, so TLS is never used; sharing one context spares the
    ~50 ms of certificate loading httpx spends on each new transport (measured 2026-11)."""
    return ssl.create_default_context()


def _transport(config: DockerSettings) -> tuple[str, httpx2.HTTPTransport]:
    """The base URL and transport for the configured host."""
    host = config.host.strip()
    parts = urlsplit(host)
    if parts.scheme == "unix" and parts.path:
        # Over a socket the host name is never resolved; "docker" only fills the Host header.
        return "http://docker", httpx2.HTTPTransport(uds=parts.path, verify=_tls())
    if parts.scheme in ("tcp", "http") and parts.hostname and parts.port:
        netloc = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return f"http://{netloc}:{parts.port}", httpx2.HTTPTransport(verify=_tls())
    raise Unavailable(
        f"FACADE_DOCKER_HOST={host!r} is not a docker address; an operator must set it to "
        "unix:///var/run/docker.sock or tcp://HOST:PORT"
    )


def request(
    method: str,
    path: str,
    *,
    params: Params | None = None,
    body: Any = None,
    hints: Hints = Hints(),
    extra_time: float = 0.0,
    timeout: float | None = None,
) -> Answer:
    """Send one Engine API request (`path` without the version prefix) and return the answer,
    or raise the domain error its status calls for."""
    config = settings()
    base_url, transport = _transport(config)
    wait = (timeout if timeout is not None else config.timeout) + extra_time
    query = {k: _param(v) for k, v in (params or {}).items()}
    try:
        with httpx2.Client(transport=transport, base_url=base_url, timeout=wait, trust_env=False) as client:
            response = client.request(method, f"/v{config.api_version}{path}", params=query, json=body)
    except httpx2.TimeoutException:
        raise Unavailable(f"docker engine at {config.host} did not answer within {wait:g}s; {hints.slow}") from None
    except (httpx2.ConnectError, FileNotFoundError, ConnectionRefusedError, PermissionError):
        raise unreachable(config.host) from None
    except httpx2.TransportError as exc:
        raise Unavailable(f"docker engine at {config.host} broke off the connection ({exc}); retry later") from None
    if response.status_code < 400:
        return Answer(response.status_code, response.content)
    raise _error(response.status_code, _message(response), hints, config.host)


def unreachable(host: str) -> Unavailable:
    return Unavailable(f"docker engine not reachable at {host}; start Docker or set FACADE_DOCKER_HOST")


def _param(value: str | int | bool) -> str:
    # The engine reads booleans as 1/0 or true/false; Python's "True" is neither.
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _message(response: httpx2.Response) -> str:
    try:
        message = response.json().get("message")
    except (ValueError, AttributeError):
        message = None
    text = message if isinstance(message, str) and message else response.text.strip()
    return text[:300] or f"HTTP {response.status_code}"


def _error(status: int, message: str, hints: Hints, host: str) -> DomainError:
    if status == 404:
        return NotFound(hints.missing or f"{message}; check the name")
    if status == 409:
        return Conflict(f"{message}; {hints.conflict}" if hints.conflict else message)
    if status == 400:
        return InvalidRequest(f"the docker engine refused the request: {message}; change the arguments")
    if status in (401, 403):
        return Forbidden(f"the docker engine at {host} refused access: {message}")
    return Unavailable(f"the docker engine at {host} failed (HTTP {status}: {message}); retry later")


def path_part(value: str) -> str:
    """A container id, name or image reference as a path segment (an image's '/' and ':' stay)."""
    return quote(value, safe="/:@")


def frames(data: bytes) -> list[tuple[str, bytes]] | None:
    """The frames of the engine's multiplexed stream (8-byte headers: stream, 0, 0, 0, size) as
    (stream name, bytes) in order; None when `data` is a raw stream (a container with a TTY)."""
    found: list[tuple[str, bytes]] = []
    offset = 0
    while offset < len(data):
        header = data[offset : offset + 8]
        if len(header) < 8 or header[0] not in (0, 1, 2) or header[1:4] != b"\0\0\0":
            return None if offset == 0 else found  # a torn last frame ends the stream
        (size,) = struct.unpack(">I", header[4:8])
        found.append(("stderr" if header[0] == 2 else "stdout", data[offset + 8 : offset + 8 + size]))
        offset += 8 + size
    return found


def demux(data: bytes) -> tuple[bytes, bytes]:
    """stdout and stderr of a stream; a raw stream is all stdout."""
    split = frames(data)
    if split is None:
        return data, b""
    return (
        b"".join(chunk for stream, chunk in split if stream == "stdout"),
        b"".join(chunk for stream, chunk in split if stream == "stderr"),
    )


def stream_items(answer: Answer) -> list[dict[str, Any]]:
    """The JSON objects of a progress stream (a pull): one per line, junk lines skipped."""
    items: list[dict[str, Any]] = []
    for line in answer.body.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            items.append(item)
    return items


def json_param(value: Any) -> str:
    """A query parameter the engine reads as JSON (`filters`)."""
    return json.dumps(value, separators=(",", ":"))

"""The event loop and HTTP implementation every server here runs on: uvloop and httptools when
they are importable (they are dependencies wherever they build, pyproject.toml), else asyncio
and h11.

One choice for `facade serve`, its `--workers` and the benchmarks' baselines and floor
(scripts/benchkit.py, bench_throughput.py), so that a comparison never measures one side on a
faster loop than the other. Measured on a busy 2-core machine (bench_throughput.py --short,
2026-12-03, issue 17): CPU per tools/call from asyncio and h11 to uvloop and httptools, the
facade's 0.96–1.5 ms to 0.90–1.16 ms, the floor's 0.17–0.22 ms to 0.12–0.16 ms.

Every server here also writes a response's bytes once per loop iteration (`OneWritePerTurn`):
uvicorn writes the status line and headers, then the body, each straight to the socket, so a
JSON answer cost two `send` system calls and reached the client as two segments.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class HttpStack:
    """uvicorn's `loop` and `http` settings, by uvicorn's names for them."""

    loop: str
    http: str

    def uvicorn_options(self) -> dict[str, Any]:
        return {"loop": self.loop, "http": one_write_per_turn(self.http)}


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def http_stack() -> HttpStack:
    return HttpStack(
        loop="uvloop" if _importable("uvloop") else "asyncio",
        http="httptools" if _importable("httptools") else "h11",
    )


@functools.cache
def _scattering() -> tuple[type, ...]:
    """The transports whose `writelines` sends the pieces as they are, with one `writev`, and
    keeps flow control: uvloop's. asyncio's joins them (3.11), or on 3.12.0-3.12.8 and
    3.13.0-3.13.1 never pauses its protocol (CVE-2024-12254): it gets one joined write."""
    try:
        from uvloop.loop import TCPTransport, UnixTransport
    except ImportError:
        return ()
    return (TCPTransport, UnixTransport)


class OneWritePerTurn:
    """A connection's transport whose writes within one turn of the event loop go to the socket
    as one, at the start of the next turn: the same bytes in the same order, a few microseconds
    later. Everything else is the transport's own. Measured 2026-12-07 (2 cores, 16 clients,
    2026-07-28 `files.stat`): 0.039 -> 0.028 ms of system CPU per call, 2,900 -> 3,040 calls/s.
    On uvloop the pieces are not joined: a listing's array is 6.8 MB at 10,449 tools."""

    __slots__ = ("_transport", "_loop", "_held", "_scatters")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] | None = None
        self._scatters = isinstance(transport, _scattering())

    def write(self, data: bytes) -> None:
        if self._held is None:
            self._held = [data]
            self._loop.call_soon(self._release)
        else:
            self._held.append(data)

    def _release(self) -> None:
        held, self._held = self._held, None
        if held and not self._transport.is_closing():  # a closed connection's answer has nobody to read it
            if len(held) == 1:
                self._transport.write(held[0])
            elif self._scatters:
                self._transport.writelines(held)
            else:
                self._transport.write(b"".join(held))

    def close(self) -> None:
        if self._held:  # uvicorn closes right after a response it will not keep alive
            self._release()
        self._transport.close()

    def is_closing(self) -> bool:  # asked after every response
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


@functools.cache
def one_write_per_turn(http: str) -> type[asyncio.Protocol]:
    """uvicorn's protocol class for `http`, its connections on a `OneWritePerTurn` transport."""
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    base: type[Any] = import_from_string(HTTP_PROTOCOLS[http])

    def connection_made(self: Any, transport: asyncio.Transport) -> None:
        base.connection_made(self, OneWritePerTurn(transport, self.loop))

    return type(f"OneWritePerTurn{base.__name__}", (base,), {"connection_made": connection_made})

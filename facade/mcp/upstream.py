"""The connections a replica forwards requests over (facade/mcp/forward.py): HTTP/1.1 with
keep-alive, a pool of idle connections per replica, answers framed by httptools and handed on
chunk by chunk as they arrive (a JSON answer, a POST's SSE stream, a GET stream that lasts).

Why not a general HTTP client: each forwarded call cost the forwarding worker as much CPU as
answering it cost the owner, and half of the forwarder's busy samples were httpx2's `send`
(py-spy, scripts/bench_forward.py, 2026-12-06). Forwarding needs little of such a client: the
other end is always a replica of ours, speaking HTTP/1.1 with Content-Length or chunked answers.

A connection taken from the pool may have been closed by the replica meanwhile (uvicorn closes
an idle keep-alive connection after 5 s): when such a connection ends before a byte of the
answer, the request is sent once more on a new one; the replica read none of it.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import httptools

CONNECT_SECONDS = 5.0
IDLE_PER_REPLICA = 64
# A reader slower than its GET stream: the socket stops being read past this many chunks held.
PAUSE_AT, RESUME_AT = 64, 16
_DONE = object()


class UpstreamError(Exception):
    """The replica could not be reached, or the connection broke before the answer was whole."""


@dataclass(frozen=True)
class _Target:
    host: str
    port: int
    tls: bool
    host_header: bytes
    prefix: str  # a base URL's own path, put before every request's


class _Connection(asyncio.Protocol):
    """One connection to a replica, carrying one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.parser = httptools.HttpResponseParser(self)  # frames one answer after another
        self.reset()

    def reset(self) -> None:
        """Ready for the next exchange (the connection kept, and its parser)."""
        self._head: asyncio.Future[None] | None = None
        self._chunks: asyncio.Queue[object] = asyncio.Queue()
        self._paused = False
        self.started_answer = False
        self.complete = False
        self.keep_alive = False
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []

    # --- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.started_answer = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(UpstreamError(f"the replica's answer is not HTTP/1.1: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.complete:
            self._fail(UpstreamError("the replica closed the connection" + (f" ({exc})" if exc else "")))

    # --- httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()
        self.keep_alive = self.parser.should_keep_alive()  # known here, while this answer is parsed
        if self._head is not None and not self._head.done():
            self._head.set_result(None)

    def on_body(self, body: bytes) -> None:
        self._chunks.put_nowait(body)
        if not self._paused and self._chunks.qsize() >= PAUSE_AT and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()

    def on_message_complete(self) -> None:
        self.complete = True
        self._chunks.put_nowait(_DONE)

    # --- one exchange
    async def exchange(self, request: bytes) -> None:
        """Send `request`; return once the answer's status and headers are in."""
        assert self.transport is not None
        self._head = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        await self._head

    async def chunks(self) -> AsyncIterator[bytes]:
        while True:
            item = await self._chunks.get()
            if self._paused and self._chunks.qsize() <= RESUME_AT and self.transport is not None:
                self._paused = False
                self.transport.resume_reading()
            if item is _DONE:
                return
            if isinstance(item, UpstreamError):
                raise item
            yield item  # type: ignore[misc]

    def reusable(self) -> bool:
        return self.complete and self.keep_alive and not self.closed

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, error: UpstreamError) -> None:
        if self._head is not None and not self._head.done():
            self._head.set_exception(error)
        self._chunks.put_nowait(error)


class Answer:
    """A replica's answer: its status and headers, then its body as it arrives."""

    def __init__(self, connection: _Connection, upstreams: Upstreams, target: _Target) -> None:
        self._connection = connection
        self._upstreams = upstreams
        self._target = target
        self.status = connection.status
        self.headers = connection.headers

    def chunks(self) -> AsyncIterator[bytes]:
        return self._connection.chunks()

    def close(self) -> None:
        """Back to the pool when the answer was read whole; else the connection is closed."""
        if self._connection.reusable():
            self._upstreams.idle(self._target, self._connection)
        else:
            self._connection.close()


class Upstreams:
    """Keep-alive connections to the other replicas, opened as needed."""

    def __init__(self) -> None:
        self._idle: dict[_Target, list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None

    async def send(self, base_url: str, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> Answer:
        """`method path` with `headers` (Host and Content-Length are added) and `body`, to the
        replica at `base_url`; raises UpstreamError when it cannot be reached."""
        target = _target(base_url)
        head = [f"{method} {target.prefix}{path} HTTP/1.1\r\n".encode("latin-1"), b"host: ", target.host_header, b"\r\n"]
        for name, value in headers:
            head += [name, b": ", value, b"\r\n"]
        head.append(f"content-length: {len(body)}\r\n\r\n".encode("latin-1"))
        request = b"".join(head) + body
        while True:
            connection, reused = await self._take(target)
            try:
                await connection.exchange(request)
            except UpstreamError:
                connection.close()
                if reused and not connection.started_answer:
                    continue  # closed by the replica while idle: it read nothing, send it again
                raise
            except BaseException:  # cancelled while waiting: the answer is no one's now
                connection.close()
                raise
            return Answer(connection, self, target)

    def idle(self, target: _Target, connection: _Connection) -> None:
        idle = self._idle.setdefault(target, [])
        if len(idle) < IDLE_PER_REPLICA:
            connection.reset()
            idle.append(connection)
        else:
            connection.close()

    def close(self) -> None:
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()

    async def _take(self, target: _Target) -> tuple[_Connection, bool]:
        idle = self._idle.get(target, [])
        while idle:
            connection = idle.pop()
            if not connection.closed and connection.transport is not None and not connection.transport.is_closing():
                return connection, True
        if target.tls and self._tls is None:
            self._tls = ssl.create_default_context()
        loop = asyncio.get_running_loop()
        try:
            _, connection = await asyncio.wait_for(
                loop.create_connection(_Connection, target.host, target.port, ssl=self._tls if target.tls else None),
                CONNECT_SECONDS,
            )
        except (OSError, asyncio.TimeoutError) as exc:
            raise UpstreamError(f"cannot connect to {target.host}:{target.port} ({exc.__class__.__name__})") from None
        return connection, False


def _target(base_url: str) -> _Target:
    parts = urlsplit(base_url)
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    return _Target(parts.hostname or "", port, tls, parts.netloc.encode("latin-1"), parts.path.rstrip("/"))

"""The connections a replica forwards requests over (facade/mcp/forward.py): HTTP/1.1 with
keep-alive, a pool of idle connections per replica, answers framed by httptools and handed on
chunk by chunk as they arrive (a JSON answer, a POST's SSE stream, a GET stream that lasts).

Why not a general HTTP client: each forwarded call cost the forwarding worker as much CPU as
answering it cost the owner, and half of the forwarder's busy samples were httpx2's `send`
(py-spy, scripts/bench_forward.py, 2026-12-06). Forwarding needs little of such a client: the
other end is always a replica of ours, speaking HTTP/1.1 with Content-Length or chunked answers.

uvicorn closes a keep-alive connection idle for 5 s without reading from it: a connection idle
for 4 s is not used again, and one taken from the pool that ends before a byte of the answer had
its request sent into that close, unread, so it is sent once more, on a new connection. That
holds for a replica's uvicorn reached directly, as `FACADE_REPLICA_URL` is meant to be; a proxy
between replicas could have passed the request on before closing.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import httptools

CONNECT_SECONDS = 5.0
IDLE_PER_REPLICA = 64
IDLE_SECONDS = 4.0  # under uvicorn's keep-alive timeout (5 s): the replica has not closed it yet
# A client reading slower than its answer comes: the socket stops being read past this many bytes
# held (a chunk is one read, up to 256 KiB, so a count of chunks would not bound them).
PAUSE_BYTES, RESUME_BYTES = 1 << 20, 1 << 18
# An owner whose host vanished sends no FIN or RST, and a quiet GET stream has nothing to send
# that would fail: the kernel's keep-alive probes find it gone, ~30 s after its last word.
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 15, 5, 3
_DONE = object()


class UpstreamError(Exception):
    """The replica could not be reached, or the connection broke before the answer was whole.
    `transient`: it may answer soon (a connection that timed out, a network or this process out
    of something), unlike one refused or broken, which says the replica has stopped."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


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
        self.pool: list[_Connection] | None = None  # the idle list it waits in, if it does
        self.idle_since = 0.0
        self._paused = False
        self.reset()

    def reset(self) -> None:
        """Ready for the next exchange (the connection kept, and its parser)."""
        if self._paused and self.transport is not None:  # an answer that ended as reading paused
            self.transport.resume_reading()
        self._paused = False
        self._held = 0  # bytes received and not yet taken by chunks()
        self._head: asyncio.Future[None] | None = None
        self._chunks: asyncio.Queue[object] = asyncio.Queue()
        self.head_only = False
        self._stray = False
        self._headers_done = False  # later header lines are trailers, not the head's
        self._interim = False  # a 1xx answer, which the final one follows
        self._until_close = False  # neither a length nor chunks: the body ends when the connection does
        self.finished_at = 0.0
        self.started_answer = False
        self.complete = False
        self.keep_alive = False
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []

    # --- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            for option, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE), ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
                                  ("TCP_KEEPCNT", KEEPALIVE_COUNT)):  # fmt: skip
                if hasattr(socket, option):  # Linux's; elsewhere the system's defaults
                    sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)

    def data_received(self, data: bytes) -> None:
        if self._head is None or self.complete:  # nothing asked: what it says is no answer of ours
            self.close()
            return
        self.started_answer = True
        try:
            self.parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:  # no upgrade was asked for
            self._fail(UpstreamError(f"the replica's answer is not HTTP/1.1: {exc}"))
            self.close()
        if self._stray:  # more after the answer, in the same read: not to be parsed into the next
            self.keep_alive = False
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.pool is not None:  # closed by the replica while idle: out of the pool at once
            self.pool.remove(self)
            self.pool = None
        if self._until_close and exc is None:  # the end of the connection is the end of the body
            self.on_message_complete()
        if not self.complete:
            self._fail(UpstreamError("the replica closed the connection" + (f" ({exc})" if exc else "")))

    # --- httptools callbacks
    def on_message_begin(self) -> None:
        if self.complete:
            self._stray = True

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._stray and not self._headers_done:
            self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        if self._stray:
            return
        self.status = self.parser.get_status_code()
        if 100 <= self.status < 200 and self.status != 101:  # interim (103 Early Hints…): not the answer
            self._interim = True
            self.headers = []
            return
        self._headers_done = True
        framed = any(name.lower() in (b"content-length", b"transfer-encoding") for name, _ in self.headers)
        self._until_close = not framed and not self.head_only and self.status not in (204, 304)
        self.keep_alive = self.parser.should_keep_alive()  # known here, while this answer is parsed
        if self.head_only:  # the answer to a HEAD has no body, whatever its length says; the
            self.keep_alive = False  # parser cannot know, so the connection is not used again
            self.on_message_complete()
        if self._head is not None and not self._head.done():
            self._head.set_result(None)

    def on_body(self, body: bytes) -> None:
        if self._stray:
            return
        self._chunks.put_nowait(body)
        self._held += len(body)
        if not self._paused and self._held >= PAUSE_BYTES and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()

    def on_message_complete(self) -> None:
        if self._interim:  # the final answer's head is still to come
            self._interim = False
            return
        if not self.complete:
            self.complete = True
            self.finished_at = time.monotonic()  # when the replica's keep-alive clock starts too
            self._chunks.put_nowait(_DONE)

    # --- one exchange
    async def exchange(self, request: bytes, *, head_only: bool) -> None:
        """Send `request`; return once the answer's status and headers are in."""
        assert self.transport is not None
        self.head_only = head_only
        self._head = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        await self._head

    async def chunks(self) -> AsyncIterator[bytes]:
        while True:
            item = await self._chunks.get()
            if isinstance(item, bytes):
                self._held -= len(item)
            if self._paused and self._held <= RESUME_BYTES and self.transport is not None:
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
        self._connection: _Connection | None = connection
        self._upstreams = upstreams
        self._target = target
        self.status = connection.status
        self.headers = connection.headers

    def chunks(self) -> AsyncIterator[bytes]:
        assert self._connection is not None, "the answer was closed"
        return self._connection.chunks()

    def close(self) -> None:
        """Back to the pool when the answer was read whole; else the connection is closed. Once:
        a connection back in the pool may carry another request by a second call."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if connection.reusable():
            self._upstreams.idle(self._target, connection)
        else:
            connection.close()


class Upstreams:
    """Keep-alive connections to the other replicas, opened as needed."""

    def __init__(self) -> None:
        self._idle: dict[_Target, list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    async def send(self, base_url: str, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> Answer:
        """`method path` with `headers` (Host and Content-Length are added) and `body`, to the
        replica at `base_url`; raises UpstreamError when it cannot be reached."""
        target = _target(base_url)
        head = [f"{method} {target.prefix}{path} HTTP/1.1\r\n".encode("latin-1"), b"host: ", target.host_header, b"\r\n"]
        for name, value in headers:
            head += [name, b": ", value, b"\r\n"]
        head.append(f"content-length: {len(body)}\r\n\r\n".encode("latin-1"))
        request = b"".join(head) + body
        fresh = False
        while True:
            connection = await self._take(target, fresh=fresh)
            try:
                await connection.exchange(request, head_only=method == "HEAD")
            except UpstreamError:
                connection.close()
                if not fresh and connection.idle_since and not connection.started_answer:
                    # Closed by the replica as it went idle (module docstring): once more, on a
                    # new connection, and the others kept as long are no better.
                    for kept in self._idle.pop(target, []):
                        kept.pool = None
                        kept.close()
                    fresh = True
                    continue
                raise
            except BaseException:  # cancelled while waiting: the answer is no one's now
                connection.close()
                raise
            return Answer(connection, self, target)

    def idle(self, target: _Target, connection: _Connection) -> None:
        idle = self._idle.setdefault(target, [])
        if self._closed or len(idle) >= IDLE_PER_REPLICA:
            connection.close()
            return
        connection.idle_since = connection.finished_at
        connection.reset()
        connection.pool = idle
        idle.append(connection)

    def close(self) -> None:
        """Close the idle connections; those still carrying an answer close when it ends."""
        self._closed = True
        for idle in self._idle.values():
            for connection in idle:
                connection.pool = None
                connection.close()
        self._idle.clear()

    async def _take(self, target: _Target, *, fresh: bool) -> _Connection:
        idle = self._idle.get(target, [])
        while idle and not fresh:
            connection = idle.pop()
            connection.pool = None
            usable = connection.transport is not None and not connection.transport.is_closing()
            if not connection.closed and usable and time.monotonic() - connection.idle_since < IDLE_SECONDS:
                return connection
            connection.close()
        if not idle:
            self._idle.pop(target, None)
        if target.tls and self._tls is None:
            self._tls = ssl.create_default_context()
        try:
            return await asyncio.wait_for(self._connect(target), CONNECT_SECONDS)
        except asyncio.TimeoutError:
            raise UpstreamError(f"cannot connect to {target.host}:{target.port} (TimeoutError)", transient=True) from None

    async def _connect(self, target: _Target) -> _Connection:
        """A connection to one of the addresses `target`'s host has, in their order. Tried one by
        one here rather than by `create_connection`, which, when several refuse (`localhost`'s
        ::1 and 127.0.0.1), raises a bare OSError: refused by every one is what says the replica
        has stopped."""
        loop = asyncio.get_running_loop()
        errors: list[OSError] = []
        try:
            addresses = await loop.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
        except OSError as exc:  # a name that does not resolve now may again (DNS)
            errors.append(exc)
            addresses = []
        for family, _, _, _, address in addresses:
            host = address[0] if family != socket.AF_INET6 or not address[3] else f"{address[0]}%{address[3]}"
            try:
                _, connection = await loop.create_connection(
                    _Connection, host, address[1],
                    ssl=self._tls if target.tls else None, server_hostname=target.host if target.tls else None,
                )  # fmt: skip
                return connection
            except OSError as exc:
                errors.append(exc)
        refused = bool(errors) and all(isinstance(e, ConnectionRefusedError) for e in errors)
        raise UpstreamError(
            f"cannot connect to {target.host}:{target.port} ({', '.join(sorted({type(e).__name__ for e in errors}))})",
            transient=not refused,  # refused by every address: nobody listens there now
        )


@functools.lru_cache(maxsize=256)  # a few replicas' URLs, parsed once rather than per forwarded call
def _target(base_url: str) -> _Target:
    parts = urlsplit(base_url)
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    host_header = parts.netloc.rpartition("@")[2]  # never a user:password part
    return _Target(parts.hostname or "", port, tls, host_header.encode("latin-1"), parts.path.rstrip("/"))

"""The connections a replica forwards over (facade/mcp/upstream.py), against a scripted HTTP/1.1
server on loopback: what each answer's bytes are and when the server closes is the test's."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from facade.mcp.upstream import Upstreams, UpstreamError

pytestmark = pytest.mark.anyio
Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class Server:
    """Loopback server running `script(reader, writer, n)` for its n-th connection."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.connections = 0
        self.requests: list[bytes] = []
        self.port = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.script(reader, writer, self.connections)
        finally:
            writer.close()

    async def request(self, reader: asyncio.StreamReader) -> bytes | None:
        """One whole request (head and Content-Length body), or None at the end of the connection."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
        whole = head + await reader.readexactly(length)
        self.requests.append(whole)
        return whole

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
async def serving() -> AsyncIterator[Callable[[Script], Awaitable[Server]]]:
    started: list[asyncio.Server] = []

    async def start(script: Script) -> Server:
        server = Server(script)
        listening = await asyncio.start_server(server._serve, "127.0.0.1", 0)
        server.port = listening.sockets[0].getsockname()[1]
        started.append(listening)
        return server

    yield start
    for listening in started:
        listening.close()


def ok(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


async def whole(upstreams: Upstreams, url: str, body: bytes = b"{}") -> tuple[int, bytes]:
    answer = await upstreams.send(url, "POST", "/mcp", [(b"mcp-session-id", b"s1")], body)
    try:
        return answer.status, b"".join([chunk async for chunk in answer.chunks()])
    finally:
        answer.close()


async def test_answers_arrive_whole_and_the_connection_is_kept(serving: Callable[[Script], Awaitable[Server]]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while (request := await server.request(reader)) is not None:
            writer.write(ok(request.rsplit(b"\r\n\r\n", 1)[1]))

    server = await serving(script)
    upstreams = Upstreams()
    try:
        assert await whole(upstreams, server.url, b'{"a":1}') == (200, b'{"a":1}')
        assert await whole(upstreams, server.url, b'{"b":2}') == (200, b'{"b":2}')
    finally:
        upstreams.close()
    assert server.connections == 1
    head = server.requests[0].split(b"\r\n\r\n")[0].split(b"\r\n")
    assert head[0] == b"POST /mcp HTTP/1.1"
    assert f"host: 127.0.0.1:{server.port}".encode() in head and b"mcp-session-id: s1" in head


async def test_a_stream_s_chunks_are_handed_on_as_they_come(serving: Callable[[Script], Awaitable[Server]]) -> None:
    more = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"a\r\ndata: one\n\r\n")
        await more.wait()  # the client must have the first event before the server goes on
        writer.write(b"a\r\ndata: two\n\r\n0\r\n\r\n")

    server = await serving(script)
    upstreams = Upstreams()
    try:
        answer = await upstreams.send(server.url, "GET", "/mcp", [], b"")
        assert answer.status == 200 and (b"content-type", b"text/event-stream") in answer.headers
        chunks = answer.chunks()
        assert await asyncio.wait_for(chunks.__anext__(), 60) == b"data: one\n"
        more.set()
        assert [chunk async for chunk in chunks] == [b"data: two\n"]
        answer.close()
    finally:
        upstreams.close()


async def test_a_kept_connection_the_server_dropped_is_replaced_and_the_request_sent_again(
    serving: Callable[[Script], Awaitable[Server]],
) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)
        if n == 1:  # answers once, then drops the connection when the next request comes
            writer.write(ok(b"first"))
            await server.request(reader)
            return
        writer.write(ok(b"again"))

    server = await serving(script)
    upstreams = Upstreams()
    try:
        assert await whole(upstreams, server.url) == (200, b"first")
        assert await whole(upstreams, server.url) == (200, b"again")
    finally:
        upstreams.close()
    assert server.connections == 2 and len(server.requests) == 3


async def test_a_fresh_connection_that_breaks_is_an_error_not_a_retry(serving: Callable[[Script], Awaitable[Server]]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)  # and closes without a word

    server = await serving(script)
    upstreams = Upstreams()
    try:
        with pytest.raises(UpstreamError, match="closed the connection"):
            await whole(upstreams, server.url)
    finally:
        upstreams.close()
    assert server.connections == 1


async def test_an_answer_cut_short_is_an_error_and_its_connection_is_not_kept(
    serving: Callable[[Script], Awaitable[Server]],
) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf")
        await writer.drain()

    server = await serving(script)
    upstreams = Upstreams()
    try:
        answer = await upstreams.send(server.url, "POST", "/mcp", [], b"{}")
        with pytest.raises(UpstreamError):
            async for _ in answer.chunks():
                pass
        answer.close()
        assert not any(upstreams._idle.values())  # nothing kept
    finally:
        upstreams.close()


async def test_nobody_listening_is_an_error() -> None:
    with socket.socket() as taken:  # a port that was free a moment ago, and nobody listens on
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    upstreams = Upstreams()
    try:
        with pytest.raises(UpstreamError, match="cannot connect"):
            await whole(upstreams, f"http://127.0.0.1:{port}")
    finally:
        upstreams.close()


async def test_an_answer_left_unread_closes_its_connection(serving: Callable[[Script], Awaitable[Server]]) -> None:
    # A client gone mid-stream (facade/mcp/forward.py stops relaying): the rest of the answer is
    # no one's, so its connection must not carry the next request.
    ended = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\na\r\ndata: one\n\r\n")
        assert await reader.read() == b""  # the client closed its end
        ended.set()

    server = await serving(script)
    upstreams = Upstreams()
    try:
        answer = await upstreams.send(server.url, "GET", "/mcp", [], b"")
        assert await asyncio.wait_for(answer.chunks().__anext__(), 60) == b"data: one\n"
        answer.close()
        await asyncio.wait_for(ended.wait(), 60)
        assert not any(upstreams._idle.values())
    finally:
        upstreams.close()

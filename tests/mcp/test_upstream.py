"""The connections a replica forwards over (facade/mcp/upstream.py), against a scripted HTTP/1.1
server on loopback: what each answer's bytes are and when the server closes is the test's."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from facade.mcp import upstream
from facade.mcp.upstream import PAUSE_BYTES, RESUME_BYTES, Answer, Upstreams, UpstreamError, _Connection, _target

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
        """One whole request, kept in `requests`; None at the end of the connection."""
        whole = await read_request(reader)
        if whole is not None:
            self.requests.append(whole)
        return whole

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


async def read_request(reader: asyncio.StreamReader) -> bytes | None:
    """One whole request (head and Content-Length body), or None at the end of the connection."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    return head + await reader.readexactly(length)


def answering_once(answer: bytes) -> Script:
    """A script that answers one request with `answer`, then holds the connection until the other end closes it."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_request(reader)
        writer.write(answer)
        await reader.read()

    return script


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


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept connections usable however slow the machine (else reuse counts would depend on it)."""
    monkeypatch.setattr(upstream, "IDLE_SECONDS", 3600.0)


async def _all(chunks: AsyncIterator[bytes]) -> list[bytes]:
    return [chunk async for chunk in chunks]


def ok(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


async def whole(upstreams: Upstreams, url: str, body: bytes = b"{}") -> tuple[int, bytes]:
    async def exchanged() -> tuple[int, bytes]:
        answer = await upstreams.send(url, "POST", "/mcp", [(b"mcp-session-id", b"s1")], body)
        try:
            return answer.status, b"".join([chunk async for chunk in answer.chunks()])
        finally:
            answer.close()

    return await asyncio.wait_for(exchanged(), 60)  # a regression fails, never hangs the worker


async def test_answers_arrive_whole_and_the_connection_is_kept(serving: Callable[[Script], Awaitable[Server]], patient: None) -> None:
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
    serving: Callable[[Script], Awaitable[Server]], patient: None
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
    with socket.socket() as taken:  # bound, so no one else takes the port, and not listening
        taken.bind(("127.0.0.1", 0))
        upstreams = Upstreams()
        try:
            with pytest.raises(UpstreamError, match="cannot connect") as refused:
                await whole(upstreams, f"http://127.0.0.1:{taken.getsockname()[1]}")
            assert not refused.value.transient  # nobody there: the replica has stopped
        finally:
            upstreams.close()


@pytest.fixture
def owner_example(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[int]], str]:
    """`owner.example` resolving to 127.0.0.1 at each of the given ports, in that order (as
    `localhost` resolves to ::1 and 127.0.0.1)."""

    def resolving(ports: list[int]) -> str:
        real = socket.getaddrinfo

        def getaddrinfo(host: str, port: object, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
            if host != "owner.example":
                return real(host, port, *args, **kwargs)  # type: ignore[arg-type]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", p)) for p in ports]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        return f"http://owner.example:{ports[0]}"

    return resolving


async def test_refused_at_every_address_is_a_stopped_replica(owner_example: Callable[[list[int]], str]) -> None:
    with socket.socket() as first, socket.socket() as second:  # bound, not listening
        first.bind(("127.0.0.1", 0))
        second.bind(("127.0.0.1", 0))
        url = owner_example([first.getsockname()[1], second.getsockname()[1]])
        upstreams = Upstreams()
        try:
            with pytest.raises(UpstreamError, match="ConnectionRefusedError") as refused:
                await whole(upstreams, url)
            assert not refused.value.transient  # asyncio alone says only "Multiple exceptions"
        finally:
            upstreams.close()


async def test_the_next_address_is_tried_when_one_refuses(
    serving: Callable[[Script], Awaitable[Server]], owner_example: Callable[[list[int]], str],
) -> None:
    server = await serving(answering_once(ok(b"{}")))
    with socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))
        upstreams = Upstreams()
        try:
            assert await whole(upstreams, owner_example([refusing.getsockname()[1], server.port])) == (200, b"{}")
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


class Transport(asyncio.Transport):
    """Records what a connection asks of its socket."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = True
        self.closed = False
        self.written = b""

    def write(self, data: bytes) -> None:  # type: ignore[override]
        self.written += bytes(data)

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


async def answered(answer: bytes) -> tuple[_Connection, Transport]:
    """A connection on a recording transport, asked once and given `answer` in one read."""
    connection = _Connection()
    transport = Transport()
    connection.connection_made(transport)
    asked = asyncio.ensure_future(connection.exchange(b"POST /mcp HTTP/1.1\r\n\r\n", head_only=False))
    await asyncio.sleep(0)
    connection.data_received(answer)
    await asyncio.wait_for(asked, 60)
    return connection, transport


def chunked(*chunks: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks)


async def test_a_connection_paused_for_a_slow_reader_is_read_again_when_kept() -> None:
    # More bytes in one read than a connection holds before it stops reading (PAUSE_BYTES), the
    # answer whole in them, none of it read by the client: kept, it must be read again.
    events = chunked(*[b"e" * (PAUSE_BYTES // 4)] * 5)
    connection, transport = await answered(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + events + b"0\r\n\r\n")
    assert connection.complete and not transport.reading and connection.reusable()
    upstreams = Upstreams()
    Answer(connection, upstreams, _target("http://127.0.0.1:1")).close()  # back to the pool
    assert transport.reading and upstreams._idle


async def test_reading_stops_by_the_bytes_held_not_the_chunks_and_starts_as_they_are_taken() -> None:
    """A few large chunks hold as much as many small ones: a count of chunks let one connection
    hold 16 MiB for a client that did not read."""
    big = b"x" * (PAUSE_BYTES // 2)
    connection, transport = await answered(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + chunked(big))
    assert transport.reading  # half the bound held
    connection.data_received(chunked(big, big))
    assert not transport.reading  # three chunks, 1.5 times the bound
    taken = connection.chunks()
    while transport.reading is False:
        assert await asyncio.wait_for(taken.__anext__(), 60)
    assert connection._held <= RESUME_BYTES


async def test_an_interim_answer_is_not_the_answer() -> None:
    connection = _Connection()
    transport = Transport()
    connection.connection_made(transport)
    asked = asyncio.ensure_future(connection.exchange(b"POST /mcp HTTP/1.1\r\n\r\n", head_only=False))
    await asyncio.sleep(0)
    connection.data_received(b"HTTP/1.1 103 Early Hints\r\nlink: </style.css>\r\n\r\n")
    await asyncio.sleep(0)
    assert not asked.done()
    connection.data_received(ok(b"{}"))
    await asyncio.wait_for(asked, 60)
    assert connection.status == 200 and b"link" not in [name for name, _ in connection.headers]
    assert await _all(connection.chunks()) == [b"{}"] and connection.reusable()


async def test_trailers_are_not_the_answer_s_head() -> None:
    connection, _ = await answered(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nx-trailer: late\r\n\r\n")
    assert [name for name, _ in connection.headers] == [b"transfer-encoding"]
    assert await _all(connection.chunks()) == [b"ok"]


async def test_an_answer_without_a_length_ends_with_its_connection() -> None:
    connection, _ = await answered(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nhello")
    connection.connection_lost(None)
    assert await _all(connection.chunks()) == [b"hello"] and not connection.reusable()
    cut, _ = await answered(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nhello")  # a length not reached is an error
    cut.connection_lost(None)
    with pytest.raises(UpstreamError):
        await _all(cut.chunks())


async def test_connections_to_an_owner_probe_it_while_quiet(serving: Callable[[Script], Awaitable[Server]]) -> None:
    server = await serving(answering_once(ok(b"{}")))
    upstreams = Upstreams()
    answer = await asyncio.wait_for(upstreams.send(server.url, "POST", "/mcp", [], b"{}"), 60)
    sock = answer._connection.transport.get_extra_info("socket")  # type: ignore[union-attr]
    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    if hasattr(socket, "TCP_KEEPIDLE"):
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == upstream.KEEPALIVE_IDLE
    answer.close()
    upstreams.close()


async def test_a_head_answer_has_no_body_whatever_its_length_says(serving: Callable[[Script], Awaitable[Server]]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while (await server.request(reader)) is not None:
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n")  # as uvicorn answers a HEAD

    server = await serving(script)
    upstreams = Upstreams()
    try:
        for _ in range(2):
            answer = await upstreams.send(server.url, "HEAD", "/mcp", [], b"")
            assert answer.status == 200 and await asyncio.wait_for(_all(answer.chunks()), 60) == []
            answer.close()
    finally:
        upstreams.close()
    assert server.connections == 2  # the parser waited for 5 bytes: its connection is not kept


class Owner:
    """Stands in for facade/mcp/replicas.py's Replica: every session is held at `url`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.unreachable_sessions: list[str] = []

    async def owner_url(self, session_id: str) -> str:
        return self.url

    def unreachable(self, session_id: str) -> None:
        self.unreachable_sessions.append(session_id)

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        yield


async def forwarded(owner: str | Owner, receive: Callable[[], Awaitable[dict[str, object]]]) -> list[dict[str, object]]:
    """What facade/mcp/forward.py sends its client for one POST of a session held at `owner` (a URL)."""
    from facade.mcp.forward import Forward

    async def unused(scope: object, receive: object, send: object) -> None:
        raise AssertionError("a session held elsewhere is not this replica's to answer")

    forward = Forward(unused, owner if isinstance(owner, Owner) else Owner(owner))  # type: ignore[arg-type]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
             "headers": [(b"mcp-session-id", b"0123456789ab-s1"), (b"content-type", b"application/json")]}
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    async with forward.running():
        await asyncio.wait_for(forward(scope, receive, send), 60)  # type: ignore[arg-type]
    return sent


def client(gone: asyncio.Event) -> Callable[[], Awaitable[dict[str, object]]]:
    """An ASGI receive: the request's body, then a disconnect once `gone` is set."""
    bodies = [{"type": "http.request", "body": b"{}", "more_body": False}]

    async def receive() -> dict[str, object]:
        if bodies:
            return bodies.pop()
        await gone.wait()
        return {"type": "http.disconnect"}

    return receive


async def test_an_owner_lost_mid_stream_ends_the_client_s_stream_quietly(
    serving: Callable[[Script], Awaitable[Server]],
) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"a\r\ndata: one\n\r\n")  # and the owner is gone

    server = await serving(script)
    sent = await forwarded(server.url, client(asyncio.Event()))  # the client stays
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    assert [m["body"] for m in sent[1:]] == [b"data: one\n"]  # what came, then the end of the stream


async def test_a_client_gone_before_the_owner_answers_closes_the_owner_s_connection(
    serving: Callable[[Script], Awaitable[Server]],
) -> None:
    """An owner that never answers (a hung replica) holds nothing once the client has gone:
    else each request a client sent and left would keep a task and a socket for good."""
    gone, owner_saw_the_end = asyncio.Event(), asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)
        gone.set()  # the request reached the owner, which says nothing; the client leaves
        assert await reader.read() == b""  # until the forwarder closes the connection
        owner_saw_the_end.set()

    server = await serving(script)
    sent = await forwarded(server.url, client(gone))
    assert sent == []  # no answer came, so none went to the client
    await asyncio.wait_for(owner_saw_the_end.wait(), 60)


async def test_a_client_gone_before_its_body_was_whole_sends_nothing(
    serving: Callable[[Script], Awaitable[Server]],
) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.request(reader)

    async def receive() -> dict[str, object]:
        return {"type": "http.disconnect"}  # what BodyLimit hands on when the body stopped half-way

    server = await serving(script)
    assert await forwarded(server.url, receive) == []
    assert server.connections == 0  # not an empty POST in its place


async def test_the_owner_s_date_and_server_are_not_relayed_beside_this_replica_s_own(
    serving: Callable[[Script], Awaitable[Server]],
) -> None:
    server = await serving(answering_once(b"HTTP/1.1 200 OK\r\ndate: Mon, 07 Dec 2026 02:00:00 GMT\r\nserver: uvicorn\r\n"
                                          b"content-type: application/json\r\ncontent-length: 2\r\n\r\n{}"))  # fmt: skip
    sent = await forwarded(server.url, client(asyncio.Event()))
    assert [name for name, _ in sent[0]["headers"]] == [b"content-type", b"content-length"]  # type: ignore[union-attr]


async def test_an_owner_that_does_not_answer_in_time_is_not_told_as_a_session_ended(
    serving: Callable[[Script], Awaitable[Server]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 404 tells an MCP client its session is gone (it starts a new one); an owner slow to
    accept may only be busy: 503, try again, and its entry read again from Redis next time."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        raise AssertionError("the connection timed out before it was made")

    server = await serving(script)
    monkeypatch.setattr(upstream, "CONNECT_SECONDS", 0.0)  # the connection cannot be made in time
    owner = Owner(server.url)
    sent = await forwarded(owner, client(asyncio.Event()))
    assert sent[0]["status"] == 503 and (b"retry-after", b"1") in sent[0]["headers"]  # type: ignore[operator]
    assert owner.unreachable_sessions == ["0123456789ab-s1"]


async def test_an_owner_that_refuses_the_connection_has_ended_its_sessions() -> None:
    with socket.socket() as taken:  # bound and not listening: the owner has stopped
        taken.bind(("127.0.0.1", 0))
        owner = Owner(f"http://127.0.0.1:{taken.getsockname()[1]}")
        sent = await forwarded(owner, client(asyncio.Event()))
    assert sent[0]["status"] == 404 and owner.unreachable_sessions == ["0123456789ab-s1"]


async def test_more_than_the_answer_in_one_read_closes_the_connection() -> None:
    connection, transport = await answered(
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 500 X\r\ncontent-length: 5\r\n\r\nab"
    )
    assert connection.status == 200 and b"500" not in b"".join(v for _, v in connection.headers)
    assert transport.closed and not connection.reusable()


def test_a_replica_url_s_path_leads_every_request_and_its_userinfo_is_never_sent() -> None:
    target = _target("https://user:secret@replica-3.internal:8443/base/")
    assert (target.host, target.port, target.tls) == ("replica-3.internal", 8443, True)
    assert target.host_header == b"replica-3.internal:8443" and target.prefix == "/base"

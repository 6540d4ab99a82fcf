"""Forwards a request for a handshake-era session that another replica holds to that replica,
and streams its answer back: JSON, a POST's SSE stream, and the session's long-lived GET stream
alike (facade/mcp/replicas.py says why forwarding).

Every request header goes along (Authorization, Mcp-Session-Id, Mcp-Protocol-Version,
Last-Event-ID, X-Conversation-Id…) but the hop-by-hop ones and Host, which becomes the owner's
own address so that its DNS-rebinding check passes; `X-Facade-Forwarded` marks the hop, and a
request that carries it is never forwarded again (two replicas that disagree about an owner
cannot bounce a request between them). The request body is already whole here (BodyLimit reads
it, to enforce the limit); the answer is streamed as it comes, and when the client goes away
the upstream request is closed, which ends the owner's stream too. The connections to the owners
are facade/mcp/upstream.py's.

An owner that refuses the connection has stopped: 404, which tells an MCP client its session is
gone. One that does not accept it in time may only be busy: 503 with Retry-After, and its entry
read from Redis again next time (a stopped owner's expires 15 s after its last heartbeat; 404 then).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import mcp_types as types
import structlog
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from starlette.types import ASGIApp, Receive, Scope, Send

from facade.mcp.refusal import refuse
from facade.mcp.replicas import Replica
from facade.mcp.upstream import Answer, Upstreams, UpstreamError

log = structlog.get_logger("facade.mcp.forward")
HOP_HEADER = b"x-facade-forwarded"
# RFC 9110 §7.6.1's connection-specific headers; a request's Host and length are the connection's.
_NOT_FORWARDED = {
    b"connection",
    b"keep-alive",
    b"proxy-authenticate",
    b"proxy-authorization",
    b"proxy-connection",
    b"te",
    b"trailer",
    b"transfer-encoding",
    b"upgrade",
}
# A request's Host and length are the connection's (facade/mcp/upstream.py); its body is whole
# already, so the owner has nothing to say to an `Expect: 100-continue`.
_REQUEST_NOT_FORWARDED = _NOT_FORWARDED | {b"host", b"content-length", b"expect"}
# This replica's server stamps its own Date and Server on the answer; the owner's would be twice.
_ANSWER_NOT_RELAYED = _NOT_FORWARDED | {b"date", b"server"}


class Forward:
    """ASGI wrapper around the `/mcp` app: a session held elsewhere is served from there."""

    def __init__(self, app: ASGIApp, replica: Replica) -> None:
        self.app = app
        self.replica = replica
        self._upstreams: Upstreams | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """This replica registered, and connections to the others, while the server runs. No
        limit on connections: each forwarded GET stream holds one for its whole life."""
        async with self.replica.serving():
            self._upstreams = Upstreams()
            try:
                yield
            finally:
                self._upstreams.close()
                self._upstreams = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"]) if scope["type"] == "http" else {}
        session_id = headers.get(MCP_SESSION_ID_HEADER.encode())
        if session_id is None or HOP_HEADER in headers or self._upstreams is None:
            await self.app(scope, receive, send)
            return
        try:
            owner = await self.replica.owner_url(session_id.decode("latin-1"))
        except LookupError:  # its replica is gone: as for any session that ended
            await refuse(send, 404, "Session not found")
            return
        if owner is None:
            await self.app(scope, receive, send)
            return
        await self._forward(owner, session_id.decode("latin-1"), scope, receive, send)

    async def _forward(self, owner: str, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _whole_body(receive)
        if body is None:  # the client left before its request was whole: nothing to send anyone
            return
        # The client gone, the exchange stops wherever it is: while the owner has not answered
        # yet (a long call, or an owner that hangs) as well as mid-stream. Its connection to the
        # owner is then closed, which tells the owner too.
        async with anyio.create_task_group() as watching:
            watching.start_soon(_cancel_on_disconnect, receive, watching.cancel_scope)
            await self._exchange(owner, session_id, scope, body, send)
            watching.cancel_scope.cancel()

    async def _exchange(self, owner: str, session_id: str, scope: Scope, body: bytes, send: Send) -> None:
        assert self._upstreams is not None
        query = scope.get("query_string", b"")
        path = scope.get("raw_path") or scope["path"].encode()
        try:
            answer = await self._upstreams.send(
                owner,
                scope["method"],
                (path + (b"?" + query if query else b"")).decode("latin-1"),
                [(k, v) for k, v in scope["headers"] if k.lower() not in _REQUEST_NOT_FORWARDED] + [(HOP_HEADER, b"1")],
                body,
            )
        except UpstreamError as exc:
            log.warning("forward.owner_unreachable", owner=owner, error=str(exc), transient=exc.transient)
            self.replica.unreachable(session_id)  # asked Redis again next time
            if exc.transient:  # a 404 would end a session that may still be alive (MCP: the client starts anew)
                await refuse(send, 503, "The server holding this session is not answering; try again shortly",
                             code=types.INTERNAL_ERROR, headers=[(b"retry-after", b"1")])  # fmt: skip
            else:  # the owner stopped before its entry expired, or since it was looked up
                await refuse(send, 404, "Session not found")
            return
        try:
            await _relay(answer, send)
        except UpstreamError as lost:  # the owner went away mid-answer: uvicorn closes the client's connection
            log.warning("forward.owner_lost", owner=owner, error=str(lost))
        finally:
            answer.close()


async def _relay(answer: Answer, send: Send) -> None:
    """The owner's answer to the client as it arrives."""
    await send(
        {
            "type": "http.response.start",
            "status": answer.status,
            "headers": [(k, v) for k, v in answer.headers if k.lower() not in _ANSWER_NOT_RELAYED],
        }
    )
    async for chunk in answer.chunks():
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _whole_body(receive: Receive) -> bytes | None:
    """The request's body, or None when the client went away before sending all of it."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return bytes(body)


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()

"""Forwards a request for a handshake-era session that another replica holds to that replica,
and streams its answer back: JSON, a POST's SSE stream, and the session's long-lived GET stream
alike (facade/mcp/replicas.py says why forwarding).

Every request header goes along (Authorization, Mcp-Session-Id, Mcp-Protocol-Version,
Last-Event-ID, X-Conversation-Id…) but the hop-by-hop ones and Host, which becomes the owner's
own address so that its DNS-rebinding check passes; `X-Facade-Forwarded` marks the hop, and a
request that carries it is never forwarded again (two replicas that disagree about an owner
cannot bounce a request between them). The request body is already whole here (BodyLimit reads
it, to enforce the limit); the answer is streamed as it comes, and when the client goes away
the upstream request is closed, which ends the owner's stream too.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import httpx2
import structlog
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from starlette.types import ASGIApp, Receive, Scope, Send

from facade.mcp.refusal import refuse
from facade.mcp.replicas import Replica

log = structlog.get_logger("facade.mcp.forward")
HOP_HEADER = b"x-facade-forwarded"
# RFC 9110 §7.6.1's connection-specific headers; a request's Host and length are the client library's.
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
_REQUEST_NOT_FORWARDED = _NOT_FORWARDED | {b"host", b"content-length"}
# Connecting to a live replica is quick; reading waits as long as a call or a GET stream lasts.
TIMEOUT = httpx2.Timeout(connect=5, read=None, write=30, pool=30)


class Forward:
    """ASGI wrapper around the `/mcp` app: a session held elsewhere is served from there."""

    def __init__(self, app: ASGIApp, replica: Replica) -> None:
        self.app = app
        self.replica = replica
        self._client: httpx2.AsyncClient | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """This replica registered, and a connection pool to the others, while the server runs.
        No limit on connections: each forwarded GET stream holds one for its whole life."""
        limits = httpx2.Limits(max_connections=None, max_keepalive_connections=64)
        async with self.replica.serving(), httpx2.AsyncClient(timeout=TIMEOUT, limits=limits, trust_env=False) as client:
            self._client = client
            try:
                yield
            finally:
                self._client = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"]) if scope["type"] == "http" else {}
        session_id = headers.get(MCP_SESSION_ID_HEADER.encode())
        if session_id is None or HOP_HEADER in headers or self._client is None:
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
        assert self._client is not None
        body = await _whole_body(receive)
        query = scope.get("query_string", b"")
        request = self._client.build_request(
            scope["method"],
            f"{owner}{scope['path']}" + (f"?{query.decode('latin-1')}" if query else ""),
            headers=[(k, v) for k, v in scope["headers"] if k.lower() not in _REQUEST_NOT_FORWARDED] + [(HOP_HEADER, b"1")],
            content=body,
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx2.HTTPError as exc:  # the owner stopped before its entry expired, or since it was looked up
            log.warning("forward.owner_unreachable", owner=owner, error=exc.__class__.__name__)
            self.replica.unreachable(session_id)
            await refuse(send, 404, "Session not found")
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [(k, v) for k, v in response.headers.raw if k.lower() not in _NOT_FORWARDED],
                }
            )
            async with anyio.create_task_group() as pumping:
                pumping.start_soon(_cancel_on_disconnect, receive, pumping.cancel_scope)
                async for chunk in response.aiter_raw():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                pumping.cancel_scope.cancel()
        except httpx2.HTTPError as exc:  # the owner went away mid-answer: the client sees the stream end
            log.warning("forward.owner_lost", owner=owner, error=exc.__class__.__name__)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()


async def _whole_body(receive: Receive) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body)
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return bytes(body)


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()

"""A request-body limit that tells the client what to change (the SDK's says only "too large")."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from facade.mcp.gate import replay
from facade.mcp.refusal import refuse


class BodyLimit:
    """Refuses bodies over `max_bytes` with 413 and a JSON-RPC error naming the limit and setting."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(int(declared), send)
            return
        # Without a trustworthy length, read the whole body here and stop at the limit.
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, replay([message]), send)
                return
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                await self._refuse(len(body), send)
                return
            more = message.get("more_body", False)
        await self.app(scope, replay([{"type": "http.request", "body": bytes(body), "more_body": False}], receive), send)

    async def _refuse(self, size: int, send: Send) -> None:
        message = (
            f"request body of {size} bytes is over this server's limit of {self.max_bytes} bytes; "
            "send smaller arguments (read or write large content in parts), or raise FACADE_MAX_BODY_BYTES"
        )
        await refuse(send, 413, message)

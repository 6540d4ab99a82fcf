"""A request-body limit that tells the client what to change (the SDK's says only "too large")."""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from facade.mcp.gate import BodyTooLarge, read_body
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
        declared = _content_length(scope.get("headers", ()))
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(int(declared), send)
            return
        # Without a trustworthy length, read the whole body here and stop at the limit.
        try:
            _, receive = await read_body(receive, self.max_bytes)
        except BodyTooLarge as exc:
            await self._refuse(exc.size, send)
            return
        await self.app(scope, receive, send)

    async def _refuse(self, size: int, send: Send) -> None:
        message = (
            f"request body of {size} bytes is over this server's limit of {self.max_bytes} bytes; "
            "send smaller arguments (read or write large content in parts), or raise FACADE_MAX_BODY_BYTES"
        )
        await refuse(send, 413, message)


def _content_length(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The last Content-Length sent, as `dict(headers)` would keep it, without building one."""
    found = None
    for name, value in headers:
        if name == b"content-length":
            found = value
    return found

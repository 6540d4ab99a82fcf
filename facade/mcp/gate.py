"""Who may reach `/mcp` at all: a request without a usable token is refused here, in both
protocol eras, with HTTP 401 and the `WWW-Authenticate` challenge the MCP spec's Authorization
section asks of a resource server (RFC 6750 §3, RFC 9728 §5.1), before the SDK reads it.

Usable means: a bearer token this server accepts (an agent's or a runtime's static token, or a
JWT access token of a configured authorization server whose client is an agent's); or, without a
bearer, the anonymous agent on loopback, or a `tools/call` whose arguments carry the agent's
`auth_token` (the host-side identity hook may send the token there alone, DESIGN "Identity"), for
the call's own resolution to judge. Which agent, runtime or conversation a request acts for is
still resolved by facade/access/identity.py, per request, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from facade.access.identity import TokenBook, bearer_of
from facade.errors import IdentityError, Unavailable
from facade.mcp.refusal import refuse

log = structlog.get_logger("facade.mcp.gate")
NEEDS = "this MCP endpoint needs 'Authorization: Bearer <token>' with an agent or runtime token"
# RFC 6750 §3: error_description is printable ASCII without '"' and '\'.
_NOT_IN_DESCRIPTION = re.compile(r'[^\x20\x21\x23-\x5b\x5d-\x7e]')


def challenge(metadata_url: str, description: str | None = None) -> bytes:
    """`Bearer resource_metadata="…"`; with `error="invalid_token"` when a token was sent."""
    if description is None:
        return f'Bearer resource_metadata="{metadata_url}"'.encode()
    text = _NOT_IN_DESCRIPTION.sub("", description)[:300]
    return f'Bearer error="invalid_token", error_description="{text}", resource_metadata="{metadata_url}"'.encode()


class Gate:
    """ASGI wrapper of the `/mcp` endpoint that refuses requests without a usable token.

    `metadata_url(scope)` is where this resource's metadata is (facade/web/wellknown.py)."""

    def __init__(self, app: ASGIApp, book: TokenBook, metadata_url: Callable[[Scope], str]) -> None:
        self.app = app
        self.book = book
        self.metadata_url = metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        authorization = dict(scope.get("headers", [])).get(b"authorization")
        bearer = bearer_of(authorization.decode("latin-1") if authorization is not None else None)
        if bearer is None:
            if self.book.anonymous_agent is not None:
                await self.app(scope, receive, send)
                return
            body, receive = await read_body(receive)
            if _carries_agent_token(body):
                await self.app(scope, receive, send)
                return
            await self._unauthorized(scope, send, NEEDS + "; none was sent", None)
            return
        try:
            principal = await self.book.authenticate(bearer)
        except Unavailable as exc:
            await refuse(send, 503, f"{exc}; nothing was run")
            return
        except IdentityError as exc:
            await self._unauthorized(scope, send, f"{NEEDS}; {exc}", str(exc))
            return
        if principal.kind == "operator":
            reason = "the operator token cannot use the MCP endpoint"
            await self._unauthorized(scope, send, f"{NEEDS}; {reason}", reason)
            return
        await self.app(scope, receive, send)

    async def _unauthorized(self, scope: Scope, send: Send, message: str, description: str | None) -> None:
        # The reason is this server's own words (never the token, nor a claim the sender chose),
        # so that an operator setting up an issuer sees why its tokens are refused.
        log.info("mcp.unauthorized", reason=description or "no token")
        www = challenge(self.metadata_url(scope), description)
        await refuse(send, 401, message + "; nothing was run", headers=[(b"www-authenticate", www)])


class BodyTooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size  # read so far: past the limit, not necessarily the whole body


async def read_body(receive: Receive, max_bytes: int | None = None) -> tuple[bytes, Receive]:
    """The whole request body, and a `receive` that replays it; BodyTooLarge as soon as more than
    `max_bytes` have come (BodyLimit gives a limit; the readers inside it need none)."""
    message = await receive()
    if message["type"] == "http.request" and not message.get("more_body", False):  # in one piece, as most come
        body = message.get("body", b"")
        if max_bytes is not None and len(body) > max_bytes:
            raise BodyTooLarge(len(body))
        return body, replay([message], receive)
    collected = bytearray()
    while message["type"] == "http.request":
        collected += message.get("body", b"")
        if max_bytes is not None and len(collected) > max_bytes:
            raise BodyTooLarge(len(collected))
        if not message.get("more_body", False):
            whole = bytes(collected)
            return whole, replay([{"type": "http.request", "body": whole, "more_body": False}], receive)
        message = await receive()
    return bytes(collected), replay([message])  # a disconnect: what came, then the disconnect again


def replay(messages: list[Message], then: Receive | None = None) -> Receive:
    """A `receive` that gives `messages` first, then what `then` receives (else a disconnect)."""
    queue = list(messages)

    async def replayed() -> Message:
        if queue:
            return queue.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return replayed


def _carries_agent_token(body: bytes) -> bool:
    try:
        message = json.loads(body) if body else None
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    params = message.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    token = arguments.get("auth_token") if isinstance(arguments, dict) else None
    return isinstance(token, str) and bool(token.strip())

"""Puts a view's precomputed tools array into the HTTP response of a `tools/list`.

The `tools/list` handler lets the SDK build, check and encode the whole response around a short
placeholder string; the `Splice` wrapper around the `/mcp` app then sends the array's bytes in
that placeholder's place as they leave (a whole answer as three parts: the body before it, the
array itself, the body after it; a stream's event as one message). Encoding 449 tools again on
every request was most of what a listing cost once the array itself was computed once per view.

The placeholder is random per request and registered in that request's ASGI scope, so only the
response to that request is touched, and no text a tool returns can ever trigger it.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = structlog.get_logger("facade.mcp")

_SCOPE_KEY = "facade.splice"


@dataclass(slots=True)
class _Pending:
    placeholder: bytes  # the placeholder string as JSON, quotes included
    array: bytes
    done: bool = False


def defer_array(scope: dict[str, Any], array: bytes) -> str:
    """Registers `array` for this request's response; returns the string to put in its place."""
    placeholder = f"facade-tools-{uuid.uuid4().hex}"
    scope[_SCOPE_KEY] = _Pending(json.dumps(placeholder).encode(), array)
    return placeholder


class Splice:
    """ASGI wrapper that swaps a registered placeholder for its array in the response body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def splicing_send(message: Message) -> None:
            pending: _Pending | None = scope.get(_SCOPE_KEY)
            if pending is not None and not pending.done:
                if message["type"] == "http.response.start":
                    message = _resize(message, len(pending.array) - len(pending.placeholder))
                elif message["type"] == "http.response.body":
                    body = message.get("body", b"")
                    before, found, after = body.partition(pending.placeholder)
                    if found:
                        pending.done = True
                        if message.get("more_body", False):
                            # An event of a stream (2025-11-25): one message, so that nothing else
                            # the stream sends (a ping) can land inside it; joined in one copy
                            # (`before + array + after` made two: 43% of the thread's busy samples
                            # for a 2025-11-25 listing of 10,449 tools, 6.8 MB each).
                            message = {**message, "body": b"".join((before, pending.array, after))}
                        else:
                            # A whole answer: the array goes out as its own part, the shared bytes
                            # themselves. Joined into the body it was copied twice per listing (here
                            # and into one write), 6.8 MB each at 10,449 tools.
                            await send({"type": "http.response.body", "body": before, "more_body": True})
                            await send({"type": "http.response.body", "body": pending.array, "more_body": True})
                            message = {**message, "body": after}
                    elif not message.get("more_body", False):
                        log.error("splice.missed", detail="tools/list placeholder not found in its response")
            await send(message)

        await self.app(scope, receive, splicing_send)


def _resize(start: Message, delta: int) -> Message:
    """The response start with its content-length (when it has one) grown by `delta`."""
    headers = [
        (name, str(int(value) + delta).encode()) if name.lower() == b"content-length" else (name, value)
        for name, value in start.get("headers", [])
    ]
    return {**start, "headers": headers}

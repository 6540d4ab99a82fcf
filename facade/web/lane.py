"""The HTTP application, with a lane for `POST /mcp`: every JSON-RPC request of both eras (each
`tools/call` among them) goes through the application's own middleware, in the same order, to
the `/mcp` endpoint, without Starlette's router and its exception layers in between.

Those layers had nothing to do for that request: the endpoint answers every failure itself (the
gate its refusals, the direct path and the SDK a JSON-RPC error), raises no `HTTPException`, and
the path and method are known before any of them ran. Measured on 2 cores (2026-12-05, issue
17; `facade serve` on one CPU, 16 clients sending 2026-07-28 `files.stat`, three alternating
runs of each): 0.265-0.270 -> 0.258-0.261 ms of server CPU per call.

What the layers would still have done, and what happens instead: an exception out of the
endpoint before it answered was Starlette's 500 ("Internal Server Error"); it is now uvicorn's,
the same status and text (uvicorn also closes that connection). Either way the error is logged
and the request's own line says 500. Every other request (`GET` and `DELETE /mcp` among them)
goes through Starlette as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"


def layered(middleware: Sequence[Middleware], app: ASGIApp) -> ASGIApp:
    """`app` inside `middleware`, the first outermost, as Starlette stacks its own."""
    for cls, args, kwargs in reversed(middleware):
        app = cls(app, *args, **kwargs)
    return app


class App(Starlette):
    """Starlette, whose `POST /mcp` is `mcp` inside the application's middleware."""

    def __init__(self, *, mcp: ASGIApp, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mcp_lane = layered(self.user_middleware, mcp)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == MCP_PATH:
            scope["app"] = self
            await self.mcp_lane(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

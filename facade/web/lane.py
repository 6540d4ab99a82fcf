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
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"


def layered(middleware: Sequence[Middleware], app: ASGIApp) -> ASGIApp:
    """`app` inside `middleware`, the first outermost, as Starlette stacks its own."""
    for cls, args, kwargs in reversed(middleware):
        app = cls(app, *args, **kwargs)
    return app


class App(Starlette):
    """Starlette with `mcp` as `/mcp`'s endpoint (GET, POST, DELETE), its `POST` through the lane.

    The lane is layered when Starlette builds its own stack, at the first request: middleware
    added before then (`add_middleware`) is in both, and after it Starlette refuses any more."""

    def __init__(self, *, mcp: ASGIApp, routes: Sequence[BaseRoute] = (), **kwargs: Any) -> None:
        super().__init__(routes=[Route(MCP_PATH, endpoint=mcp, methods=["GET", "POST", "DELETE"]), *routes], **kwargs)
        self.mcp = mcp
        self.mcp_lane: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.mcp_lane is None:
            self.middleware_stack = self.build_middleware_stack()
            self.mcp_lane = layered(self.user_middleware, self.mcp)
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == MCP_PATH:
            scope["app"] = self
            await self.mcp_lane(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

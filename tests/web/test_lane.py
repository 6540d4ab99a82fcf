"""The `POST /mcp` lane (facade/web/lane.py): the application's middleware, in order, around the
endpoint; everything else through Starlette's router as before."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from facade.web.lane import App


class Mark:
    """Middleware that notes, in the request's `seen` list, that the request passed it."""

    def __init__(self, app: ASGIApp, name: str, seen: list[str]) -> None:
        self.app, self.name, self.seen = app, name, seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.seen.append(self.name)
        await self.app(scope, receive, send)


class Endpoint:
    """An ASGI app as `/mcp`'s endpoint is one (a function would be taken for a request handler)."""

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.seen.append(f"mcp {scope['method']} router={'router' in scope}")
        await PlainTextResponse("mcp")(scope, receive, send)


def app_with(seen: list[str]) -> App:
    endpoint = Endpoint(seen)

    async def other(_: Request) -> PlainTextResponse:
        seen.append("other")
        return PlainTextResponse("other")

    return App(
        mcp=endpoint,
        routes=[Route("/other", other)],
        middleware=[Middleware(Mark, name="outer", seen=seen), Middleware(Mark, name="inner", seen=seen)],
    )


def send(app: App, method: str, path: str) -> httpx2.Response:
    async def go() -> httpx2.Response:
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://test") as client:
            return await client.request(method, path)

    return asyncio.run(go())


class TestLane:
    """Which requests take the lane, and that they meet the same middleware on the way."""

    def test_post_mcp_passes_the_middleware_in_order_without_the_router(self) -> None:
        seen: list[str] = []
        response = send(app_with(seen), "POST", "/mcp")
        assert response.status_code == 200 and response.text == "mcp"
        assert seen == ["outer", "inner", "mcp POST router=False"]

    def test_other_methods_and_paths_go_through_the_router(self) -> None:
        seen: list[str] = []
        app = app_with(seen)
        assert send(app, "GET", "/mcp").text == "mcp"
        assert send(app, "GET", "/other").text == "other"
        assert send(app, "PUT", "/mcp").status_code == 405  # the route's own methods, as before
        assert seen == ["outer", "inner", "mcp GET router=True", "outer", "inner", "other", "outer", "inner"]

    def test_middleware_added_before_the_first_request_is_in_the_lane_too(self) -> None:
        seen: list[str] = []
        app = app_with(seen)
        app.add_middleware(Mark, name="added", seen=seen)
        send(app, "POST", "/mcp")
        assert seen == ["added", "outer", "inner", "mcp POST router=False"]
        with pytest.raises(RuntimeError):  # once started, Starlette refuses more: the lane and its stack stay one list
            app.add_middleware(Mark, name="late", seen=seen)

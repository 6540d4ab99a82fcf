"""The HTTP application: `/mcp` (streamable HTTP, both protocol eras), the operator API under
`/api`, `/openapi.json` and `/healthz`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import structlog
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import facade
from facade.serving.conversations import sweep
from facade.serving.service import Service
from facade.mcp.fanout import Fanout
from facade.mcp.server import build_mcp_server
from facade.mcp.splice import Splice
from facade.web.api import ROUTES, openapi, starlette_routes
from facade.web.dashboard import dashboard_routes
from facade.web.limits import BodyLimit

log = structlog.get_logger("facade.web")

LOOPBACK_SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


def build_app(service: Service) -> Starlette:
    fanout = Fanout()
    server = build_mcp_server(service, fanout)
    manager = StreamableHTTPSessionManager(
        app=server,
        # On loopback a browser page must not reach the server through a rebound DNS name.
        security_settings=LOOPBACK_SECURITY if service.settings.on_loopback else None,
        # BodyLimit answers first with a message that says what to change; this is a backstop.
        max_request_body_size=service.settings.max_body_bytes + 1,
    )

    async def healthz(_: Request) -> JSONResponse:
        try:
            await anyio.to_thread.run_sync(_ping_database, service)
        except Exception:
            return JSONResponse({"status": "degraded", "database": "unreachable"}, status_code=503)
        return JSONResponse(
            {"status": "ok", "database": "ok", "capabilities": len(service.registry), "agents": sorted(service.agents)}
        )

    spec = openapi(ROUTES, facade.__version__)

    async def openapi_json(_: Request) -> JSONResponse:
        return JSONResponse(spec)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # Sync handlers, the health check and the sweeper share anyio's default limiter.
        anyio.to_thread.current_default_thread_limiter().total_tokens = service.settings.worker_threads
        fanout.start()
        unsubscribe = service.changes.subscribe(fanout.changed)
        async with manager.run(), anyio.create_task_group() as background:
            background.start_soon(sweep_forever, service)
            background.start_soon(service.changes.run)
            yield
            background.cancel_scope.cancel()
        unsubscribe()
        service.trace.close()

    return Starlette(
        routes=[
            Route("/mcp", endpoint=Splice(StreamableHTTPASGIApp(manager)), methods=["GET", "POST", "DELETE"]),
            Route("/healthz", healthz),
            Route("/openapi.json", openapi_json),
            *starlette_routes(service, ROUTES),
            *dashboard_routes(service),
        ],
        middleware=[Middleware(BodyLimit, max_bytes=service.settings.max_body_bytes)],
        lifespan=lifespan,
    )


async def sweep_forever(service: Service) -> None:
    """Expire elevations and cards whose time has passed, and tell their conversations."""
    while True:
        await anyio.sleep(service.settings.sweep_seconds)
        try:
            await anyio.to_thread.run_sync(sweep, service)
        except Exception:  # a sweep that fails (the database or Redis away) is retried next time
            log.warning("sweep.failed", exc_info=True)


def _ping_database(service: Service) -> None:
    with service.engine.connect() as connection:
        connection.execute(text("SELECT 1"))

"""The HTTP application: `/mcp` (streamable HTTP, both protocol eras), the operator API under
`/api`, `/openapi.json`, the probes `/healthz` (alive) and `/readyz` (ready to serve), `/metrics`
and `/.well-known/oauth-protected-resource`. Every request is logged once, with its request id
(facade/web/requests.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import facade
from facade.errors import Unavailable
from facade.serving.lifecycle import serving
from facade.serving.readiness import ping_database, readiness
from facade.serving.service import Service
from facade.mcp.fanout import Fanout
from facade.mcp.gate import Gate
from facade.mcp.forward import Forward
from facade.mcp.replicas import Replica
from facade.mcp.direct import Direct, Handshakes, approval_1_names
from facade.mcp.server import build_mcp_server, direct_caller
from facade.mcp.sessions import SessionLimits, SessionManager
from facade.mcp.splice import Splice
from facade.web.api import ROUTES, starlette_routes
from facade.web.dashboard import dashboard_routes
from facade.web.headers import SecurityHeaders
from facade.web.lane import App
from facade.web.limits import BodyLimit
from facade.web.metrics import metrics_route
from facade.web.models import Health, body
from facade.web.openapi import openapi
from facade.web.requests import RequestLog
from facade.web.wellknown import metadata_url_for, wellknown_routes
from facade.threads import off_loop

LOOPBACK_SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


def build_app(service: Service) -> App:
    settings = service.settings
    fanout = Fanout()
    handshakes = Handshakes()
    server = build_mcp_server(service, fanout, handshakes=handshakes)
    # With Redis there may be other replicas: sessions are minted with this one's id, and a
    # request for a session another replica holds is forwarded there (facade/mcp/replicas.py).
    replica = _replica(settings.effective_replica_url, settings.redis_url) if settings.redis_url else None
    # On loopback a browser page must not reach the server through a rebound DNS name.
    security = LOOPBACK_SECURITY if settings.on_loopback else None
    manager = SessionManager(
        server,
        limits=SessionLimits(max_per_token=settings.max_sessions_per_token, idle_seconds=settings.session_idle_seconds),
        on_end=lambda session_id: (fanout.forget(session_id), handshakes.forget(session_id)),
        replica_id=replica.id if replica is not None else None,
        security_settings=security,
        # BodyLimit answers first with a message that says what to change; this is a backstop.
        max_request_body_size=settings.max_body_bytes + 1,
    )
    service.metrics.sessions_open.set_function(lambda: manager.open_sessions)
    # Well-formed tools/call POSTs are answered directly; the rest by the SDK (facade/mcp/direct.py).
    mcp_app = Direct(
        Splice(StreamableHTTPASGIApp(manager)),
        direct_caller(service, fanout, server),
        handshakes,
        manager.held_transport,
        approval_1_names(service.registry),
        security,
    )
    forward = Forward(mcp_app, replica) if replica is not None else None
    gate = Gate(forward or mcp_app, service.token_book, metadata_url_for(settings))

    async def healthz(_: Request) -> JSONResponse:
        try:
            await off_loop(ping_database, service)
        except Exception:
            return JSONResponse(body(Health, {"status": "degraded", "database": "unreachable"}), status_code=503)
        return JSONResponse(
            body(Health, {"status": "ok", "database": "ok", "capabilities": len(service.registry), "agents": sorted(service.agents)})
        )

    async def readyz(_: Request) -> JSONResponse:
        checks = await off_loop(readiness, service)
        ready = all(state == "ok" for state in checks.values())
        return JSONResponse(body(Health, {"status": "ok" if ready else "degraded", **checks}), status_code=200 if ready else 503)

    spec = openapi(ROUTES, facade.__version__)

    async def openapi_json(_: Request) -> JSONResponse:
        return JSONResponse(spec)

    @contextlib.asynccontextmanager
    async def lifespan(_: App) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(serving(service, fanout))
            await stack.enter_async_context(manager.run())
            if forward is not None:
                await stack.enter_async_context(forward.running())
            yield

    return App(
        mcp=gate,  # /mcp; its POST inside the same middleware, without the router (facade/web/lane.py)
        routes=[
            Route("/healthz", healthz),
            *wellknown_routes(settings),
            Route("/readyz", readyz),
            metrics_route(service.metrics),
            Route("/openapi.json", openapi_json),
            *starlette_routes(service, ROUTES),
            *dashboard_routes(service),
        ],
        middleware=[
            Middleware(RequestLog),  # outermost: its line covers every answer, refusals included
            Middleware(SecurityHeaders),
            Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
        ],
        exception_handlers={404: no_route, Unavailable: unavailable},
        lifespan=lifespan,
    )


async def unavailable(_: Request, exc: Exception) -> JSONResponse:
    """A store that cannot answer (Redis away or slower than its timeout) where a route did not
    say so itself — the dashboard's pages — is a 503 with what is wrong, not a 500."""
    return JSONResponse({"error": str(exc)}, status_code=503)


async def no_route(request: Request, _: Exception) -> JSONResponse:
    """A path no route matches (a conversation id with a line break, a misspelt route) answers
    as every other API refusal does, in JSON that says where the routes are listed, not with
    Starlette's plain-text "Not Found"."""
    return JSONResponse({"error": f"no route for {request.method} {request.url.path!r}; the routes are listed at /openapi.json"}, status_code=404)


def _replica(url: str, redis_url: str) -> Replica:
    # Imported here: the redis client was ~0.1 s of every start-up without Redis (issue 14).
    from facade.access.redis_store import RedisReplicas

    return Replica(url, RedisReplicas(redis_url))


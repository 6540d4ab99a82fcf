"""`/.well-known/oauth-protected-resource` (RFC 9728): what an MCP client reads, after a 401 from
`/mcp`, to learn which authorization server issues tokens for this server and how to send them.

Served at the path-suffixed form the RFC gives for the resource `…/mcp`
(`/.well-known/oauth-protected-resource/mcp`, the one the 401's `resource_metadata` names) and at
the bare form, which clients fall back to; both describe `/mcp`. Without FACADE_OAUTH_ISSUERS the
document names no authorization server: this resource then takes only tokens its operator hands
out (static bearer tokens).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Scope

from facade.settings import Settings

METADATA_PATH = "/.well-known/oauth-protected-resource"
RESOURCE_PATH = "/mcp"


def base_url(settings: Settings, scope: Scope) -> str:
    """Where clients reach this server: FACADE_PUBLIC_URL, else the URL this request came to."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    return str(Request(scope).base_url).rstrip("/")


def metadata_url_for(settings: Settings) -> Callable[[Scope], str]:
    """The URL of this resource's metadata document, for the challenge of a request."""
    return lambda scope: f"{base_url(settings, scope)}{METADATA_PATH}{RESOURCE_PATH}"


def resource_metadata(settings: Settings, scope: Scope) -> dict[str, Any]:
    """The RFC 9728 §2 document. `resource` is the audience a token is checked against when
    that is this server's URL (FACADE_OAUTH_AUDIENCE may name another)."""
    document: dict[str, Any] = {
        "resource": settings.resource_url or f"{base_url(settings, scope)}{RESOURCE_PATH}",
        "bearer_methods_supported": ["header"],
        "resource_name": "Facade",
    }
    if settings.oauth_issuer_list:
        document["authorization_servers"] = settings.oauth_issuer_list
    if settings.oauth_operator_scope:
        document["scopes_supported"] = [settings.oauth_operator_scope]
    return document


# Public facts, read by MCP clients that run in a browser too (the SDK's discovery sends an
# MCP-Protocol-Version header, so a browser asks first with OPTIONS).
CORS = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, OPTIONS",
    "access-control-allow-headers": "*",
}


def wellknown_routes(settings: Settings) -> list[Route]:
    async def metadata(request: Request) -> Response:
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=CORS)
        return JSONResponse(resource_metadata(settings, request.scope), headers={"cache-control": "max-age=300", **CORS})

    methods = ["GET", "OPTIONS"]
    return [Route(METADATA_PATH, metadata, methods=methods), Route(f"{METADATA_PATH}{RESOURCE_PATH}", metadata, methods=methods)]

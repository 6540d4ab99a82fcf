"""Security headers on every answer of the dashboard and the API (and `/openapi.json`,
`/healthz`, `/metrics`): no framing, no type sniffing, no referrer, and a Content-Security-Policy
that allows nothing. A dashboard page replaces that policy with its own, which allows exactly its
nonce'd styles and, on the dashboard itself, its one nonce'd script (facade/web/dashboard.py). `/mcp` is left as the SDK answers it."""

from __future__ import annotations

import secrets

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = "content-security-policy"
# JSON and plain text need nothing from a browser; a page that is framed or runs a script here
# is an attack, so the policy allows no source at all.
NOTHING = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    CSP: NOTHING,
}


def page_policy(nonce: str, *, script: bool = False) -> str:
    """The policy of a dashboard page: its own styles (by nonce) and its own forms; no image,
    font or framing. With `script`, also the one script the page names by the same nonce (the
    dashboard's live.js) and fetches to this origin, for it; otherwise no script at all."""
    live = f"script-src 'nonce-{nonce}'; connect-src 'self'; " if script else ""
    return (
        f"default-src 'none'; style-src 'nonce-{nonce}'; {live}form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )


def new_nonce() -> str:
    return secrets.token_urlsafe(18)


class SecurityHeaders:
    """ASGI middleware: adds `HEADERS` to every HTTP answer outside `/mcp`, keeping a
    Content-Security-Policy the answer already set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == "/mcp" or scope["path"].startswith("/mcp/"):
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)

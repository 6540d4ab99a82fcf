"""An HTTP answer that carries a JSON-RPC error: how `/mcp` refuses a request before the SDK
sees it (too large, no token, too many sessions, a session that is not here)."""

from __future__ import annotations

import json
from collections.abc import Iterable

import mcp_types as types
from starlette.types import Send


async def refuse(
    send: Send, status: int, message: str, *, code: int = types.INVALID_REQUEST, headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Answers with `status` and `{"jsonrpc": "2.0", "id": null, "error": {code, message}}`, the
    shape the SDK's own refusals have (its client reads the message from it)."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()
    start_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start_headers})
    await send({"type": "http.response.body", "body": body})

"""Each HTTP request's identity in the log, and its one access line.

The outermost middleware: a request id (the client's `X-Request-Id` when well-formed, else a
new one) is put in the request's headers, so that everything downstream reads the same one (the
MCP handlers, which run in a session's task; a forward to the replica holding a session), bound
for every line logged while the request is handled, and returned in the response. When the
request is done, one `http.request` line says what it was and how it ended. Only the path is
logged: a query string is the client's and may carry anything.
"""

from __future__ import annotations

import os
import random
import re
import time

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from facade.logs import REQUEST_ID_HEADER, log_scope

log = structlog.get_logger("facade.web.access")
# Wide enough for the ids balancers and tracers send (UUIDs, W3C trace ids, ULIDs, "req-…"),
# narrow enough that a log line can hold it as it is.
WELL_FORMED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_HEADER = REQUEST_ID_HEADER.encode()
# New ids come from a generator of this process's, seeded from the system's at start and again in
# every forked worker. They were os.urandom's, whose system call let a waiting worker thread take
# the interpreter at the start of every request: on one CPU, 4.2 context switches per tools/call
# against 0.9 without it, and 0.26 -> 0.24 ms of server CPU per call (2026-12-05, issue 17). An id
# names a request in the log; it is no secret (a client may choose its own).
_ids = random.Random()
os.register_at_fork(after_in_child=_ids.seed)


def request_id(sent: bytes | None) -> str:
    """The client's id when it is well-formed, else a new one: 128 random bits as 32 hex digits,
    as uuid4().hex looked, without building a UUID or calling the system (issue 17)."""
    if sent is not None:
        text = sent.decode("latin-1")
        if WELL_FORMED.fullmatch(text):
            return text
    return f"{_ids.getrandbits(128):032x}"


class RequestLog:
    """ASGI middleware: binds the request id and writes the access line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = []
        sent: bytes | None = None
        for pair in scope["headers"]:  # one pass: the client's first id out, every other header kept
            if pair[0] != _HEADER:
                headers.append(pair)
            elif sent is None:
                sent = pair[1]
        rid = request_id(sent)
        rid_bytes = rid.encode()
        headers.append((_HEADER, rid_bytes))
        scope = {**scope, "headers": headers}
        status = 500  # what the client sees if the app fails before answering (Starlette's answer)
        started = time.perf_counter()

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # A forwarded answer already carries it (the same id: it travelled in the request).
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != _HEADER]
                message = {**message, "headers": [*kept, (_HEADER, rid_bytes)]}
            await send(message)

        with log_scope(request_id=rid):
            try:
                await self.app(scope, receive, answer)
            finally:
                log.info(
                    "http.request",
                    http_method=scope["method"],
                    path=scope["path"],
                    status=status,
                    duration_ms=round((time.perf_counter() - started) * 1000, 2),
                )

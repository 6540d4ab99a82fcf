"""Handshake-era (2025-11-25) sessions: who may open one, how many one token may hold, how long
an idle one lives, and what is forgotten when one ends.

The SDK's `StreamableHTTPSessionManager` keeps each session in this process's memory. Opening
one cost ~33 kB and needed no token (2,000 anonymous sessions held 66 MB, and stayed); an ended
one left its entry in the list-changed fan-out (~21 kB each). Here a session opens only for a
token that may list tools (facade/mcp/gate.py refuses every other request first), at most `max_per_token` at once per token on this replica (the memory
being protected is the replica's), expires after `idle_seconds` with nothing in flight, and is
forgotten by `on_end` when it ends, however it ends. With a replica id (several replicas behind
a balancer) every session id begins with it, so any replica can tell which one holds a session
(facade/mcp/replicas.py).

Built on three seams of the SDK manager as they are in mcp 2.3.x (pyproject.toml holds the SDK
to 2.3.x): `_handle_stateful_request` (the handshake-era path, where the holder is noted),
`_admit_session` (where a session id is minted, under the creation lock) and `_discard_session`
(called however a session ends).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import structlog
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Receive, Scope, Send

from facade.access.identity import bearer_of
from facade.mcp.refusal import refuse
from facade.mcp.replicas import session_id_for

log = structlog.get_logger("facade.mcp.sessions")

# The holder (a digest of its token) of the session being opened by the current request.
_opening: ContextVar[str | None] = ContextVar("facade_session_holder", default=None)


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How many sessions one token may hold on a replica, and how long an idle one lives."""

    max_per_token: int
    idle_seconds: float


class CapReached(Exception):
    """This token already holds its share of this replica's sessions."""


class SessionManager(StreamableHTTPSessionManager):
    """The SDK's manager with a per-token cap and a hook at the end."""

    def __init__(
        self,
        app: Server[Any],
        *,
        limits: SessionLimits,
        on_end: Callable[[str], None],
        replica_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(app, session_idle_timeout=limits.idle_seconds, **kwargs)
        self.limits = limits
        self.replica_id = replica_id
        self._on_end = on_end
        self._holder_of: dict[str, str] = {}  # session id → holder
        self._held: dict[str, int] = {}  # holder → open sessions

    @property
    def open_sessions(self) -> int:
        return len(self._server_instances)

    def held_transport(self, session_id: str) -> StreamableHTTPServerTransport | None:
        """The transport of a session this replica holds (None for any other)."""
        return self._server_instances.get(session_id)

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", []))
        if MCP_SESSION_ID_HEADER.encode() in headers:
            await super()._handle_stateful_request(scope, receive, send)
            return
        authorization = headers.get(b"authorization")
        bearer = bearer_of(authorization.decode("latin-1") if authorization is not None else None)
        holder = _holder(bearer)
        reset = _opening.set(holder)
        try:
            await super()._handle_stateful_request(scope, receive, send)
        except CapReached:
            await refuse(
                send,
                429,
                f"this token already holds {self.limits.max_per_token} open sessions on this server "
                "(FACADE_MAX_SESSIONS_PER_TOKEN); end one you no longer use (DELETE /mcp with its "
                f"Mcp-Session-Id), or wait: a session with nothing in flight for "
                f"{self.limits.idle_seconds:g} s ends by itself (FACADE_SESSION_IDLE_SECONDS)",
            )
        finally:
            _opening.reset(reset)

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        """As the SDK's (mcp 2.3.x), with this replica's id in front of the session id and the
        holder's count checked and taken under the manager's creation lock."""
        holder = _opening.get() or ""
        if self._held.get(holder, 0) >= self.limits.max_per_token:
            raise CapReached
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            return None
        session_id = session_id_for(self.replica_id)
        transport = StreamableHTTPServerTransport(
            mcp_session_id=session_id,
            is_json_response_enabled=self.json_response,
            event_store=self.event_store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=self.session_idle_timeout,
        )
        if requestor is not None:
            self._session_owners[session_id] = requestor
        self._server_instances[session_id] = transport
        self._holder_of[session_id] = holder
        self._held[holder] = self._held.get(holder, 0) + 1
        return transport

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        """The SDK's discard, then this session's count and fan-out entries go (the SDK may
        discard a session twice: once on DELETE, once as its task ends)."""
        reason = _end_reason(transport)
        await super()._discard_session(session_id, transport)
        holder = self._holder_of.pop(session_id, None)
        if holder is None:
            return
        left = self._held.get(holder, 0) - 1
        if left > 0:
            self._held[holder] = left
        else:
            self._held.pop(holder, None)
        self._on_end(session_id)
        # An expiry is worth an operator's eye; a client closing its session is routine.
        (log.info if reason == "idle" else log.debug)("mcp.session_ended", reason=reason, open=len(self._server_instances))


def _end_reason(transport: StreamableHTTPServerTransport) -> str:
    if transport.idle_scope is not None and transport.idle_scope.cancelled_caught:
        return "idle"
    return "closed" if transport.is_terminated else "ended"


def _holder(bearer: str | None) -> str:
    """Whose session this is, without keeping the token: its digest (or no token at all, the
    anonymous agent's)."""
    return hashlib.sha256(bearer.encode()).hexdigest() if bearer is not None else ""

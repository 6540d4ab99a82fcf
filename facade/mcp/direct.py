"""A direct path for well-formed `tools/call` POSTs, beside the SDK's transport.

Measured under load on 2 cores (2026-12, issue 17): of a call's ~3 ms server CPU, the handler
took 0.3–0.6 ms; the rest was protocol machinery — the SDK's per-request task groups and memory
streams, its pydantic validation and re-serialization of the envelope and the result, the SSE
response's chunked writes, a thread hop for the view. This path answers a `tools/call` that it
can read completely, through the same `Calls.run` (identity, the agent's view, validation against
the parsed model, approvals, audit, metrics, logs) under the same reporting()/asking() contexts
(facade/mcp/progress.py, elicitation.py), and writes the result the SDK would have written:
the same JSON-RPC envelope, content blocks, structured content and state, byte for byte
(tests/mcp/test_direct.py holds both paths to that).

Everything else goes to the SDK untouched, which answers it as before — including every request
this path could read but does not handle:
- anything but a single `tools/call` request object whose params hold only `name`,
  `arguments` (an object) and `_meta`; bodies that are not JSON;
- a `_meta.progressToken` (progress needs the SDK's response stream);
- a capability at approval 1 (the host's user is asked through elicitation first);
- 2026-07-28: a request the SDK's own inbound ladder would reject (routing headers, the
  envelope), any `Mcp-Param-*` header, answers to earlier rounds (`inputResponses`,
  `requestState`);
- 2025-11-25: a session this replica does not hold or that is ending, one opened with another
  credential, one not yet initialized, or one whose client declared elicitation (a capability
  may ask its user mid-call, which only the session's own stream can carry);
- a request the transport's security check (Host, Origin, Content-Type) or Accept check refuses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import orjson
from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER, InboundLadderRejection, classify_inbound_request
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Receive, Scope, Send

from facade.access.identity import CONVERSATION_HEADER, bearer_of
from facade.kit.asking import CannotAsk, InputNeeded, Question
from facade.kit.capability import Approval, Capability
from facade.logs import REQUEST_ID_HEADER, log_scope
from facade.mcp.callheaders import TransportVerdicts, read_headers
from facade.mcp.elicitation import NO_ELICITATION, encode_state
from facade.mcp.gate import read_body
from facade.serving.calls import CallRequest

_PARAM_KEYS = frozenset({"name", "arguments", "_meta"})
_SESSION = MCP_SESSION_ID_HEADER.lower().encode()
_SSE_HEADERS = [
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    (b"content-type", b"text/event-stream"),
]

# Runs one call: the request, its asker and its session (None in 2026-07-28), to the outcome and
# the JSON-RPC result as the SDK serializes it for the era (facade/mcp/server.py).
RunCall = Callable[[CallRequest, Any, ServerSession | None, str], Awaitable[dict[str, Any]]]


@dataclass(slots=True)
class Held:
    """A handshake-era session as its requests last showed it."""

    connection: Connection
    session: ServerSession


class Handshakes:
    """The connection of each open handshake-era session, noted by a server middleware on each of
    its requests (facade/mcp/server.py) and forgotten when the session ends."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}

    def note(self, session_id: str, connection: Connection, session: ServerSession) -> None:
        held = self._held.get(session_id)
        if held is None or held.connection is not connection:
            self._held[session_id] = Held(connection, session)

    def get(self, session_id: str) -> Held | None:
        return self._held.get(session_id)

    def forget(self, session_id: str) -> None:
        self._held.pop(session_id, None)


class NoAsker:
    """A handshake-era call whose client declared no elicitation: it cannot ask (as the
    session's own asker says, facade/mcp/elicitation.py)."""

    async def ask(self, question: Question) -> Any:
        raise CannotAsk(NO_ELICITATION)


class FirstRoundAsker:
    """A 2026-07-28 call's first round (no answers yet): a question ends the round, as
    `RoundTripAsker` with no answers does; a client without elicitation cannot be asked."""

    def __init__(self, can_elicit: bool) -> None:
        self.can_elicit = can_elicit

    async def ask(self, question: Question) -> Any:
        if not self.can_elicit:
            raise CannotAsk(NO_ELICITATION)
        raise InputNeeded(question, encode_state({}))


class Direct:
    """ASGI wrapper of the `/mcp` app: well-formed `tools/call` POSTs are answered here.

    `sessions(session_id)` is the SDK transport holding a handshake-era session on this replica
    (or None); `is_approval_1(name)` whether a name is a capability the host's user must confirm."""

    def __init__(
        self,
        app: ASGIApp,
        run_call: RunCall,
        handshakes: Handshakes,
        sessions: Callable[[str], Any],
        is_approval_1: Callable[[str], bool],
        security_settings: TransportSecuritySettings | None,
    ) -> None:
        self.app = app
        self.run_call = run_call
        self.handshakes = handshakes
        self.sessions = sessions
        self.is_approval_1 = is_approval_1
        self.verdicts = TransportVerdicts(security_settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or "user" in scope:
            await self.app(scope, receive, send)
            return
        body, receive = await read_body(receive)
        handled = await self._answer(scope, send, body)
        if not handled:
            await self.app(scope, receive, send)

    async def _answer(self, scope: Scope, send: Send, body: bytes) -> bool:
        """Answers the request and says True, or says False having sent nothing."""
        message = _call_message(body)
        if message is None:
            return False
        params = message["params"]
        name = params["name"]
        meta = params.get("_meta")
        if (isinstance(meta, Mapping) and "progressToken" in meta) or self.is_approval_1(name):
            return False
        headers = read_headers(scope["headers"])
        if headers.has_param_header or not await self.verdicts.passes(scope, headers):
            return False
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        call = CallRequest(
            name=name,
            arguments=params.get("arguments"),
            bearer=bearer_of(headers.get("authorization")),
            conversation_header=headers.get(CONVERSATION_HEADER),
            meta=meta if isinstance(meta, Mapping) else None,
            session_id=session_id,
        )
        bound = {"request_id": headers.get(REQUEST_ID_HEADER), "jsonrpc_id": message["id"], "method": "tools/call",
                 "mcp_session": session_id}
        if session_id is None:
            if version not in MODERN_PROTOCOL_VERSIONS or headers.routing_repeated:
                return False
            verdict = classify_inbound_request(message, headers=headers.routing())
            if isinstance(verdict, InboundLadderRejection):
                return False
            capabilities = verdict.client_capabilities
            can_elicit = isinstance(capabilities, Mapping) and capabilities.get("elicitation") is not None
            with log_scope(**{k: v for k, v in bound.items() if v is not None}):
                result = await self.run_call(call, FirstRoundAsker(can_elicit), None, verdict.protocol_version)
            await _send(send, [(b"content-type", b"application/json")], _encode(message["id"], result, ascii_only=True))
            return True
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return False
        transport = self.sessions(session_id)
        held = self.handshakes.get(session_id)
        if transport is None or held is None or transport.is_terminated or not held.connection.initialize_accepted:
            return False
        client = held.connection.client_params
        if client is None or client.capabilities.elicitation is not None:
            return False
        idle = transport.idle_scope
        if idle is not None and idle.cancel_called:
            return False
        with _in_flight(transport), log_scope(**bound):
            result = await self.run_call(call, NoAsker(), held.session, held.connection.protocol_version)
        data = _encode(message["id"], result, ascii_only=False)
        await _send(send, [*_SSE_HEADERS, (_SESSION, session_id.encode())], b"event: message\r\ndata: " + data + b"\r\n\r\n")
        return True


def _call_message(body: bytes) -> dict[str, Any] | None:
    """The body as a single `tools/call` request this path handles, else None."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "tools/call":
        return None
    rid = message.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int | str) or set(message) != {"jsonrpc", "id", "method", "params"}:
        return None
    params = message["params"]
    if not isinstance(params, dict) or not set(params) <= _PARAM_KEYS or not isinstance(params.get("name"), str):
        return None
    if not isinstance(params.get("arguments", {}), dict) or not isinstance(params.get("_meta", {}), dict):
        return None
    return message


def _encode(rid: int | str, result: dict[str, Any], *, ascii_only: bool) -> bytes:
    """The JSON-RPC response as the SDK writes it: compact; in 2026-07-28 with non-ASCII escaped
    (its `json.dumps`), in 2025-11-25 as UTF-8 (pydantic's encoder)."""
    envelope = {"jsonrpc": "2.0", "id": rid, "result": result}
    try:
        data = orjson.dumps(envelope)
    except TypeError:  # an integer past 64 bits: the standard encoder writes it
        data = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode()
    if ascii_only and not data.isascii():
        data = json.dumps(envelope, separators=(",", ":")).encode()
    return data


async def _send(send: Send, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    start_headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": start_headers})
    await send({"type": "http.response.body", "body": body})


class _in_flight:
    """While a request is answered here, its session is busy, as the SDK's transport counts it
    (`StreamableHTTPServerTransport.handle_request`, mcp 2.3.x): no idle expiry mid-call."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.counted = transport.idle_scope is not None and transport._idle_timeout is not None  # noqa: SLF001

    def __enter__(self) -> None:
        if self.counted:
            self.transport._requests_in_flight += 1  # noqa: SLF001 - the SDK's own counter
            self.transport.idle_scope.deadline = math.inf

    def __exit__(self, *exc: object) -> None:
        if self.counted:
            self.transport._requests_in_flight -= 1  # noqa: SLF001
            if not self.transport._requests_in_flight:  # noqa: SLF001
                self.transport.idle_scope.deadline = anyio.current_time() + self.transport._idle_timeout  # noqa: SLF001


def approval_1_names(registry: Iterable[Capability]) -> Callable[[str], bool]:
    """Whether a called name (as listed, or as a runtime mangles it) is a capability at approval 1."""
    names = frozenset(n for c in registry if c.approval == Approval.HOST for n in (c.name, c.tool_name))
    return names.__contains__

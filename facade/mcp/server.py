"""The MCP face of the service: a low-level SDK `Server` whose handlers resolve the caller, list
its view and run its calls. Shared by streamable HTTP (both protocol eras) and stdio."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

import mcp_types as types
from mcp_types import SERVER_INFO_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
import structlog
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.runner import ServerRunner
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError

import facade
from facade.logs import REQUEST_ID_HEADER, bind, log_scope
from facade.serving.calls import CallRequest
from facade.serving.metrics import RUNTIME, Metrics
from facade.serving.outcomes import Outcome
from facade.serving.service import Service
from facade.errors import IdentityError
from facade.kit.asking import Asker, asking
from facade.kit.progress import Reporter, reporting
from facade.mcp import resources
from facade.mcp.content import to_block
from facade.mcp.direct import Handshakes, RunCall
from facade.mcp.elicitation import asker_for, input_required
from facade.mcp.fanout import Fanout
from facade.mcp.progress import reporter_for
from facade.mcp.splice import defer_array
from facade.access.identity import CONVERSATION_HEADER, bearer_of, resolve_conversation, resolve_listing
from facade.catalogue.schema import compact_json
from facade.catalogue.served import Served
from facade.threads import off_loop

SERVER_NAME = "facade"
INSTRUCTIONS = "Tools of several backend domains; the tools you see are the ones your agent may use."
log = structlog.get_logger("facade.mcp.server")

# The view the `tools/list` handler chose for the request being handled, and whose it is (the
# agent; None for a runtime): see `ServeListing`.
_listed: ContextVar[tuple[Served, str | None] | None] = ContextVar("facade_listed", default=None)


class LogContext:
    """Server middleware: what is logged while a request is handled carries the HTTP request's
    id, the JSON-RPC id and method, and the MCP session. In the handshake era the handler runs
    in the session's task, not the HTTP request's, so the request id comes from the request's
    header (facade/web/requests.py puts a well-formed one there)."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        headers = getattr(ctx.request, "headers", None)
        bound = {
            "request_id": headers.get(REQUEST_ID_HEADER) if headers is not None else None,
            "jsonrpc_id": ctx.request_id,
            "method": ctx.method,
            "mcp_session": ctx.session._connection.session_id,  # noqa: SLF001 - SDK exposes no accessor
        }
        with log_scope(**{k: v for k, v in bound.items() if v is not None}):
            return await call_next(ctx)


class ServeListing:
    """Server middleware that puts a view's precomputed tools array into the `tools/list` result.

    The handler resolves the caller and the view but returns an empty list, so the SDK's whole
    pipeline (params validation, the initialization gate, the era's result envelope, `resultType`,
    the `serverInfo` stamp) still runs on every request; only the array is swapped for the one the
    SDK's own serializer produced for this view and era when the view was first served (over
    HTTP, as bytes spliced into the encoded response: `facade.mcp.splice`). Serializing 449 tools
    again on every request was 80 of the 81 ms a listing took. An elevation changes the view, and
    with it the cached array used. Each listing is logged and counted with the bytes it served.
    """

    def __init__(self, metrics: Callable[[], Metrics]) -> None:
        self.metrics = metrics  # a function: the service of a stdio server is built after its greeting

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/list":
            return await call_next(ctx)
        token = _listed.set(None)
        try:
            result = await call_next(ctx)
            listed = _listed.get()
        finally:
            _listed.reset(token)
        if listed is None or not isinstance(result, dict):
            # Only if the SDK ever ran handlers outside the middleware's context: fail loudly
            # rather than answer with the empty placeholder list.
            raise RuntimeError("tools/list handler did not record the view it served")
        served, agent = listed
        wire = served.wire(ctx.protocol_version)
        self.metrics().listed(agent, ctx.protocol_version, wire.bytes)
        log.info("tools.list", agent=agent or RUNTIME, era=ctx.protocol_version, bytes=wire.bytes, tools=len(served.tools))
        scope = getattr(ctx.request, "scope", None)
        if isinstance(scope, dict):  # streamable HTTP: splice the encoded array in on the way out
            return {**result, "tools": defer_array(scope, wire.encoded)}
        return {**result, "tools": wire.tools}  # stdio


class NoteSessions:
    """Server middleware: each handshake-era request notes its session's connection, for the
    direct call path (facade/mcp/direct.py) to find."""

    def __init__(self, handshakes: Handshakes) -> None:
        self.handshakes = handshakes

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        connection = ctx.session._connection  # noqa: SLF001 - SDK exposes no accessor
        if connection.session_id is not None:
            self.handshakes.note(connection.session_id, connection, ctx.session)
        return await call_next(ctx)


class FacadeServer(Server[Any]):
    """Advertises `tools.listChanged` on the handshake era too: elevations change the list."""

    def create_initialization_options(self, *args: Any, **kwargs: Any) -> InitializationOptions:
        if not args and "notification_options" not in kwargs:
            kwargs["notification_options"] = NotificationOptions(tools_changed=True)
        return super().create_initialization_options(*args, **kwargs)


def build_mcp_server(
    service: Service | Callable[[], Service],
    fanout: Fanout,
    *,
    fixed_agent: str | None = None,
    handshakes: Handshakes | None = None,
) -> Server[Any]:
    """The server for `service`. With `fixed_agent` (stdio) the connection is that agent, and its
    conversation is this process unless the client says otherwise. `fanout` learns each
    conversation's sessions so that an elevation reaches them as `list_changed`; `handshakes`,
    when given, each handshake-era session's connection (for the direct call path).

    `service` may be a function that returns it: `facade stdio` answers its client's greeting
    before the service is built (facade/mcp/preparing.py), and only requests that waited for it
    call the function. The server, and so the greeting's answer, is the same either way."""
    service_of = _source(service)
    process_conversation = f"stdio-{uuid.uuid4().hex[:12]}" if fixed_agent else None

    def transport(ctx: ServerRequestContext[Any]) -> tuple[str | None, str | None, str | None]:
        request = ctx.request
        headers = getattr(request, "headers", None)
        bearer = bearer_of(headers.get("authorization")) if headers is not None else None
        conversation_header = headers.get(CONVERSATION_HEADER) if headers is not None else None
        session_id = ctx.session._connection.session_id or process_conversation  # noqa: SLF001 - SDK exposes no accessor
        return bearer, conversation_header, session_id

    def lister(ctx: ServerRequestContext[Any]) -> tuple[str | None, str | None, str | None]:
        """Whose list a request is about: (agent, or None for a runtime; conversation; session id)."""
        bearer, header, session_id = transport(ctx)
        try:
            conversation = resolve_conversation(injected=None, header=header, meta=_meta(ctx), session_id=session_id)
            if fixed_agent is not None:
                return fixed_agent, conversation, session_id
            return resolve_listing(service_of().token_book, bearer).agent, conversation, session_id
        except IdentityError as exc:
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        agent_name, conversation, session_id = lister(ctx)
        bind(agent=agent_name or RUNTIME, conversation=conversation)
        served = await off_loop(listing, agent_name, conversation, ctx.protocol_version, owner=agent_name or RUNTIME)
        remember(ctx, session_id, agent_name, conversation)
        _listed.set((served, agent_name))
        return types.ListToolsResult(tools=[])  # ServeListing fills in the view's array

    def listing(agent_name: str | None, conversation: str | None, era: str) -> Served:
        """In a worker thread: the view reads the conversation's elevations (a Redis round trip),
        a view's first listing in an era serializes its array, and the trace appends to its file."""
        service = service_of()
        if agent_name is None:  # a runtime
            served = service.runtime_list()
        else:
            served = service.views.view(service.agents[agent_name], conversation).served
        service.trace.served(served, agent=agent_name, conversation=conversation, era=era, runtime=agent_name is None)
        return served

    def remember(ctx: ServerRequestContext[Any], session_id: str | None, agent: str | None, conversation: str | None) -> None:
        _remember(fanout, ctx.session, session_id, agent, conversation)

    async def listen(ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams) -> types.SubscriptionsListenResult:
        agent_name, conversation, _ = lister(ctx)
        # A runtime's list is the whole catalogue and never changes; its stream stays quiet.
        key = (agent_name or "", conversation or "")
        return await ListenHandler(fanout.bus(key))(ctx, params)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        bearer, header, session_id = transport(ctx)
        # The call's progress and its questions to the user reach its client through these
        # (facade/mcp/progress.py, elicitation.py); the handler's worker thread inherits them.
        request = CallRequest(
            name=params.name,
            arguments=params.arguments,
            bearer=bearer,
            conversation_header=header,
            meta=_meta(ctx),
            session_id=session_id,
            fixed_agent=fixed_agent,
        )
        async with reporter_for(ctx) as reporter:
            outcome = await run_call(service_of(), request, reporter, asker_for(ctx, params))
        remember(ctx, session_id, outcome.agent, outcome.conversation)
        if outcome.question is not None:
            return input_required(outcome.question, outcome.state)
        return to_result(outcome)

    def whose(ctx: ServerRequestContext[Any]) -> tuple[str | None, str | None]:
        agent, conversation, _ = lister(ctx)
        return agent, conversation

    def input_schema(name: str) -> Mapping[str, Any] | None:
        try:
            return service_of().served.tool(name)["inputSchema"]
        except KeyError:
            return None

    server = FacadeServer(
        SERVER_NAME,
        version=facade.__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=listen,
        get_tool_input_schema=input_schema,
    )
    resources.install(server, service_of, whose, fanout)
    # Innermost, inside the SDK's own middleware; the log context wraps the listing's line.
    server.middleware += [LogContext(), ServeListing(lambda: service_of().metrics)]
    if handshakes is not None:
        server.middleware.append(NoteSessions(handshakes))
    return server


def _source(service: Service | Callable[[], Service]) -> Callable[[], Service]:
    if callable(service):
        return service
    return lambda: service


async def run_call(service: Service, request: CallRequest, reporter: Reporter | None, asker: Asker) -> Outcome:
    """One call, under the progress reporter and the asker its transport gives it (a worker
    thread running the handler inherits both): the one way both call paths run a call."""
    with reporting(reporter), asking(asker):
        return await service.calls.run(request)


def _remember(fanout: Fanout, session: ServerSession, session_id: str | None, agent: str | None, conversation: str | None) -> None:
    if agent is not None and conversation is not None and session_id is not None:
        fanout.remember((agent, conversation), session_id, session)


def direct_caller(service: Service, fanout: Fanout, server: Server[Any]) -> RunCall:
    """How the direct path (facade/mcp/direct.py) runs a call: as `call_tool` does, its result
    shaped as the SDK's pipeline shapes `to_result`'s for the era (`wire_result`)."""
    runner = ServerRunner(server, connection=None, lifespan_state=None)  # type: ignore[arg-type] - only its serializer
    stamp = server.server_info_stamp

    async def call(request: CallRequest, asker: Asker, session: ServerSession | None, era: str) -> dict[str, Any]:
        outcome = await run_call(service, request, None, asker)
        if session is not None:
            _remember(fanout, session, request.session_id, outcome.agent, outcome.conversation)
        fast = wire_result(outcome, era, stamp)
        if fast is not None:
            return fast
        result = input_required(outcome.question, outcome.state) if outcome.question is not None else to_result(outcome)
        return runner._serialize("tools/call", era, result)  # noqa: SLF001 - the SDK's own shaping, mcp 2.3.x

    return call


def wire_result(outcome: Outcome, era: str, server_info: Mapping[str, Any]) -> dict[str, Any] | None:
    """`to_result(outcome)` as the SDK puts it on the wire for `era` (its key order included),
    without the models' round trips; None for the shapes left to the SDK (content blocks, input
    requests). tests/mcp/test_direct.py holds the two to the same JSON."""
    if outcome.question is not None or (outcome.ok and outcome.blocks):
        return None
    text = compact_json(outcome.data or {}) if outcome.ok else (outcome.error or "error")
    result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": not outcome.ok}
    modern = era in MODERN_PROTOCOL_VERSIONS
    if modern:
        result["resultType"] = "complete"
    if outcome.ok:
        result["structuredContent"] = outcome.data or {}
    if modern:
        result["_meta"] = {SERVER_INFO_META_KEY: server_info}
    return result


def to_result(outcome: Outcome) -> types.CallToolResult:
    if outcome.ok and outcome.blocks:  # a capability that returned content (facade/kit/content.py)
        return types.CallToolResult(content=[to_block(b) for b in outcome.blocks], structured_content=outcome.data)
    if outcome.ok:
        data = outcome.data or {}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=compact_json(data))], structured_content=data
        )
    return types.CallToolResult(content=[types.TextContent(type="text", text=outcome.error or "error")], is_error=True)


def _meta(ctx: ServerRequestContext[Any]) -> Mapping[str, Any] | None:
    meta = ctx.meta
    if meta is None:
        return None
    return meta if isinstance(meta, Mapping) else getattr(meta, "model_extra", None)

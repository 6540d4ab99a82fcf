"""`facade bridge`: stdio MCP in front, the facade's HTTP MCP behind, identity from the
environment — for runtimes that launch MCP servers as commands and cannot run Python hooks.

It lists what the facade lists, injects `auth_token` and `conversation_id` into every call
(the same `IdentityHook` as the host's), and passes `tools/list_changed` on to its client in
either era: to a handshake-era client as a notification, to a 2026-07-28 client on its
`subscriptions/listen` stream. Upstream it holds one handshake-era session, whose GET stream
hears the facade's changes. A call's progress goes down to the client that made it, and so do
the facade's questions (elicitation: an approval-1 confirmation, a capability's own question)
while that call is the only one in flight — the question names no call, so with several in
flight it could reach the wrong one, and is declined instead.
"""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

from facade.host.identity_hook import IdentityHook, connect
from facade.mcp.server import FacadeServer


def run_bridge(url: str, token: str, conversation: str | None) -> None:
    hook = IdentityHook(token, conversation or f"bridge-{uuid.uuid4().hex[:12]}")
    anyio.run(_bridge, url, hook)


async def _bridge(url: str, hook: IdentityHook) -> None:
    downstream: list[ServerSession] = []  # the handshake-era client, once it has asked anything
    listeners = InMemorySubscriptionBus()  # 2026-07-28 clients' listen streams

    async def on_upstream(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            for session in downstream:
                await session.send_tool_list_changed()
            await listeners.publish(ToolsListChanged())

    in_flight: list[ServerRequestContext[Any]] = []

    async def on_question(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        if len(in_flight) != 1:
            return types.ErrorData(code=types.INVALID_REQUEST, message="the bridge cannot tell which call this question is about")
        ctx = in_flight[0]
        if not ctx.session.check_client_capability(types.ClientCapabilities(elicitation=types.ElicitationCapability())):
            return types.ErrorData(code=types.INVALID_REQUEST, message="the bridge's client declared no elicitation capability")
        try:
            return await ctx.session.elicit_form(params.message, params.requested_schema, related_request_id=ctx.request_id)
        except Exception as exc:  # a client that cannot be asked on this connection
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"the bridge's client could not be asked: {exc}")

    async with connect(url, hook, mode="legacy", message_handler=on_upstream, elicitation_callback=on_question) as upstream:

        def remember(ctx: ServerRequestContext[Any]) -> None:
            # A 2026-07-28 client hears changes only on the listen streams it opened.
            if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS and ctx.session not in downstream:
                downstream[:] = [ctx.session]

        async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
            remember(ctx)
            return types.ListToolsResult(tools=await upstream.list_tools())

        async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
            remember(ctx)

            async def progress(done: float, total: float | None, message: str | None) -> None:
                await ctx.session.report_progress(done, total, message)

            in_flight.append(ctx)
            try:
                return await upstream.call_tool(params.name, params.arguments, progress_callback=progress)
            finally:
                in_flight.remove(ctx)

        server = FacadeServer(
            "facade-bridge", on_list_tools=list_tools, on_call_tool=call_tool, on_subscriptions_listen=ListenHandler(listeners)
        )
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

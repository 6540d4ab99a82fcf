"""`facade bridge`: stdio MCP in front, the facade's HTTP MCP behind, identity from the
environment — for runtimes that launch MCP servers as commands and cannot run Python hooks.

It lists what the facade lists, injects `auth_token` and `conversation_id` into every call
(the same `IdentityHook` as the host's), and passes `tools/list_changed` on to its client in
either era: to a handshake-era client as a notification, to a 2026-07-28 client on its
`subscriptions/listen` stream. Upstream it holds one handshake-era session, whose GET stream
hears the facade's changes.
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

    async with connect(url, hook, mode="legacy", message_handler=on_upstream) as upstream:

        def remember(ctx: ServerRequestContext[Any]) -> None:
            # A 2026-07-28 client hears changes only on the listen streams it opened.
            if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS and ctx.session not in downstream:
                downstream[:] = [ctx.session]

        async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
            remember(ctx)
            return types.ListToolsResult(tools=await upstream.list_tools())

        async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
            remember(ctx)
            return await upstream.call_tool(params.name, params.arguments)

        server = FacadeServer(
            "facade-bridge", on_list_tools=list_tools, on_call_tool=call_tool, on_subscriptions_listen=ListenHandler(listeners)
        )
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

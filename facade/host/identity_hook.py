"""The host-side identity hook: every `tools/call` leaves with the agent's `auth_token` and the
conversation's `conversation_id`, overwriting whatever the model put there.

The model never sees these fields (the announced schema omits them) and never has to copy a
token; a model that invents one anyway is simply overwritten here.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ElicitationFnT, MessageHandlerFnT
from mcp.shared.dispatcher import ProgressFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@dataclass(frozen=True, slots=True)
class IdentityHook:
    """Writes the identity fields into a call's arguments."""

    auth_token: str
    conversation_id: str

    def inject(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        return {**(arguments or {}), "auth_token": self.auth_token, "conversation_id": self.conversation_id}

    def headers(self) -> dict[str, str]:
        """The same identity for the transport, so listing and calls agree."""
        return {"Authorization": f"Bearer {self.auth_token}", "X-Conversation-Id": self.conversation_id}


class IdentifiedClient:
    """An MCP client whose every call carries the hook's identity."""

    def __init__(self, client: Client, hook: IdentityHook) -> None:
        self.client = client
        self.hook = hook

    async def list_tools(self) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor, cache_mode="bypass")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, progress_callback: ProgressFnT | None = None
    ) -> types.CallToolResult:
        return await self.client.call_tool(name, self.hook.inject(arguments), progress_callback=progress_callback)


@contextlib.asynccontextmanager
async def connect(
    url: str,
    hook: IdentityHook,
    *,
    mode: str = "auto",
    bearer: str | None = None,
    message_handler: MessageHandlerFnT | None = None,
    elicitation_callback: ElicitationFnT | None = None,
) -> AsyncIterator[IdentifiedClient]:
    """Connect to a facade over streamable HTTP. `bearer` defaults to the hook's token (one agent
    per connection); a multi-agent runtime passes its own runtime token instead."""
    headers = hook.headers()
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    http: httpx2.AsyncClient = create_mcp_http_client(headers=headers)
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(
            transport, mode=mode, message_handler=message_handler, elicitation_callback=elicitation_callback, cache=None  # type: ignore[arg-type]
        ) as client:
            yield IdentifiedClient(client, hook)

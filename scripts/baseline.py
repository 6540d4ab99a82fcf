"""The "before" every benchmark compares against: the official SDK's `MCPServer` serving the same
capabilities the way a real deployment wrote them.

Each handler is registered as a function taking the capability's input model as one parameter
plus `auth_token` and `conversation_id`, each with a one-sentence description, and every tool
description carries the same paragraph on passing the token. The functions run the real
handlers, so calls through the baseline do the same work as calls through the facade.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from pydantic import Field
from sqlalchemy.orm import Session

from facade.serving.outcomes import as_structured
from facade.kit.capability import CallContext, Capability
from facade.catalogue.registry import Registry

# ~210 characters, as in the deployment this project measured (DESIGN "The problem, in numbers").
TOKEN_PARAGRAPH = (
    "Authentication: always pass the auth_token you were given at the start of the conversation, "
    "exactly as received, together with the conversation_id of this chat; never invent, shorten or "
    "reuse a token."
)
TOKEN_FIELD = "The caller's bearer token, exactly as it was given to you."
CONVERSATION_FIELD = "The id of the current conversation."


def build_baseline(
    capabilities: Registry | list[Capability],
    session_factory: Callable[[], Session] | None = None,
) -> MCPServer:
    server = MCPServer("baseline")
    for cap in capabilities:
        server.add_tool(
            _tool_function(cap, session_factory),
            name=cap.name,
            description=f"{cap.description} {TOKEN_PARAGRAPH}",
        )
    return server


def build_fastmcp(
    capabilities: Registry | list[Capability],
    session_factory: Callable[[], Session] | None = None,
) -> Any:
    """FastMCP serving the same tools with the same functions (scripts/bench_throughput.py); it is
    imported here only, from a Python that has it."""
    from fastmcp import FastMCP

    server = FastMCP("fastmcp-baseline")
    for cap in capabilities:
        server.tool(_tool_function(cap, session_factory), name=cap.name, description=f"{cap.description} {TOKEN_PARAGRAPH}")
    return server


def run_call(cap: Capability, parsed: Any, ctx: CallContext) -> dict[str, Any]:
    """What any server must do for a call: the handler, its commit and its result as data, in the
    calling thread (a worker's, as in the facade); the session is closed either way."""
    try:
        result = cap.handler(ctx, parsed)
        if ctx.opened_db is not None:
            ctx.opened_db.commit()
        return as_structured(result)
    finally:
        if ctx.opened_db is not None:
            ctx.opened_db.close()


def _tool_function(cap: Capability, session_factory: Callable[[], Session] | None) -> Callable[..., Any]:
    async def tool(args: Any, auth_token: str, conversation_id: str) -> dict[str, Any]:
        ctx = CallContext("baseline", conversation_id, session_factory)
        parsed = cap.parsed_model.model_validate(
            {**args.model_dump(), "auth_token": auth_token, "conversation_id": conversation_id}
        )
        return await anyio.to_thread.run_sync(run_call, cap, parsed, ctx)

    tool.__annotations__ = {
        "args": cap.input_model,
        "auth_token": Annotated[str, Field(description=TOKEN_FIELD)],
        "conversation_id": Annotated[str, Field(description=CONVERSATION_FIELD)],
        "return": dict[str, Any],
    }
    tool.__name__ = cap.name.replace(".", "_")
    return tool

"""Finding what you can do: your apps and their modes, tools found by words, and one tool
described in full — including the tools your current mode hides. Every answer comes from
`ctx.facade`, the same views that list and enforce the catalogue."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from facade.kit import CallContext, Input, NotFound, Toolset

tools = Toolset()
full_tools = Toolset()  # listed after elevation: describing comes after asking for more


class NoArgs(Input):
    pass


class ToolSearch(Input):
    query: str = Field(min_length=1, max_length=200, description="What you want done, in plain words.")
    limit: int = Field(default=5, ge=1, le=50)


class ToolName(Input):
    name: str = Field(min_length=3, max_length=120, description="A tool name such as finance.invoice_create.")


@tools.capability("apps_list", read_only=True, example={})
def apps_list(ctx: CallContext, args: NoArgs) -> dict[str, Any]:
    """List your apps with their modes and how many tools each has now and in full mode."""
    return {"apps": ctx.facade.apps()}


@tools.capability("tool_search", read_only=True, example={"query": "list"})
def tool_search(ctx: CallContext, args: ToolSearch) -> dict[str, Any]:
    """Find tools of your apps by what they do, including ones your current mode hides."""
    return {"tools": ctx.facade.search(args.query, args.limit)}


@full_tools.capability("tool_describe", read_only=True, example={"name": "skills.apps_list"})
def tool_describe(ctx: CallContext, args: ToolName) -> dict[str, Any]:
    """Show one tool of your apps with its parameters, even if your current mode hides it."""
    described = ctx.facade.describe(args.name)
    if described is None:
        raise NotFound(f"{args.name} is not a tool of your apps; find one with skills.tool_search")
    return {"tool": described, "available_now": ctx.facade.visible(args.name)}

"""The facade's own domain: what an agent can ask the facade about itself — its apps and modes,
and the tools behind them, including the ones its current mode hides.

It keeps no state of its own: every answer comes from `ctx.facade`, the same views that list
and enforce the catalogue, so what it reports cannot disagree with tools/list.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from facade.kit import CallContext, Domain, Input, NotFound

domain = Domain("skills", description="What you can do here: your apps, modes and tools.", default_mode="full")


class NoArgs(Input):
    pass


class ToolSearch(Input):
    query: str = Field(min_length=1, max_length=200, description="Words to look for in tool names and descriptions.")
    limit: int = Field(default=20, ge=1, le=100)


class ToolName(Input):
    name: str = Field(min_length=3, max_length=120, description="A tool name such as finance.invoice_create.")


@domain.capability("apps_list", read_only=True, example={})
def apps_list(ctx: CallContext, args: NoArgs) -> dict[str, Any]:
    """List your apps with their modes and how many tools each has now and in full mode."""
    return {"apps": ctx.facade.apps()}


@domain.capability("tool_search", read_only=True, example={"query": "list"})
def tool_search(ctx: CallContext, args: ToolSearch) -> dict[str, Any]:
    """Find tools of your apps by words, including ones your current mode hides."""
    words = args.query.lower().split()
    scored = []
    for cap in ctx.facade.catalogue():
        text = f"{cap.name.replace('_', ' ').replace('.', ' ')} {cap.description}".lower()
        score = sum(text.count(word) for word in words)
        if score:
            scored.append((-score, cap.name, cap))
    scored.sort()
    return {
        "tools": [
            {"name": cap.name, "description": cap.description, "available_now": ctx.facade.visible(cap.name)}
            for _, _, cap in scored[: args.limit]
        ],
        "total": len(scored),
    }


# Registered here so that, in registration order, asking for more comes before the full-tier
# tool it unlocks (the registry walk elevates `skills` itself, then describes a tool).
from domains.skills import elevation  # noqa: E402,F401

@domain.capability("tool_describe", read_only=True, example={"name": "skills.apps_list"})
def tool_describe(ctx: CallContext, args: ToolName) -> dict[str, Any]:
    """Show one tool of your apps with its parameters, even if your current mode hides it."""
    described = ctx.facade.describe(args.name)
    if described is None:
        raise NotFound(f"{args.name} is not a tool of your apps; find one with skills.tool_search")
    return {"tool": described, "available_now": ctx.facade.visible(args.name)}

"""Asking for more: `skills.elevate` (held for an operator) and `skills.card_status`."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import Field

from facade.kit import Approval, CallContext, Conflict, Input, InvalidRequest, Toolset

tools = Toolset()


class Elevate(Input):
    domain: str = Field(min_length=1, max_length=60, description="One of your apps, e.g. finance.")
    reason: str = Field(min_length=3, max_length=500, description="Why this conversation needs the app's full tools.")


class CardId(Input):
    card_id: int = Field(ge=1)


def check_elevate(ctx: CallContext, args: Elevate) -> None:
    """Refused before any card is made: an app the agent lacks, or one already in full mode."""
    modes = {app["app"]: app["mode"] for app in ctx.facade.apps()}
    if args.domain not in modes:
        raise InvalidRequest(f"{args.domain} is not one of your apps ({', '.join(sorted(modes))}); pick one of them")
    if modes[args.domain] == "full":
        raise Conflict(f"{args.domain} is already in full mode in this conversation; its tools are in your list")


# Core although `elevate` is no CRUD verb: it is how an agent in core mode reaches the rest.
@tools.capability(
    "elevate",
    tier="core",
    approval=Approval.OPERATOR,
    precheck=check_elevate,
    example={"domain": "skills", "reason": "The user wants the full details of a tool."},
)
def elevate(ctx: CallContext, args: Elevate) -> dict[str, Any]:
    """Ask an operator to switch one of your apps to full mode for this conversation."""
    until = ctx.facade.grant_elevation(args.domain)
    return {"app": args.domain, "mode": "full", "until": dt.datetime.fromtimestamp(until, dt.UTC).isoformat()}


@tools.capability("card_status", read_only=True, example={"card_id": 1})
def card_status(ctx: CallContext, args: CardId) -> dict[str, Any]:
    """Tell the state of one of this conversation's approval requests, and its result once run."""
    return {"card": ctx.facade.card(args.card_id)}

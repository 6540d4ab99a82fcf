"""The operator HTTP API under `/api`, JSON in and out, described at `/openapi.json`.

Every route accepts the operator token; an agent's token may read only its own
`/api/agents/{self}/…` routes. Errors are `{"error": "..."}` with a message that says what to
change — never a stack trace. What reads or writes a store (Redis, the database, a file) runs
in a worker thread (`off_loop`): the event loop never waits on I/O.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from facade.threads import off_loop
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from facade.reports import denylist
from facade.access.approvals import card_view
from facade.catalogue.agents import Agent
from facade.access.cards import STATUSES
from facade.reports.budget import agent_budget
from facade.reports.inventory import catalogue_report
from facade.serving.conversations import delete_conversation
from facade.serving.service import Service
from facade.errors import Conflict, FacadeError, IdentityError, NotFound, Unavailable, UsageError
from facade.access.identity import Principal, bearer_of, checked_conversation
from facade.reports.toolsmd import render_tools_md
from facade.web import models
from facade.web.models import body

Handler = Callable[[Request, Service, Principal], Awaitable[Response]]


class ApiError(Exception):
    """An API refusal with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ApiRoute:
    """A route and what /openapi.json says about it.

    Attributes:
        response: the model the handler builds its JSON answer with (facade/web/models.py).
        request: the model of the optional JSON body the handler reads, if it reads one.
        text: a text media type the route answers instead (or, with `response`, besides).
    """

    path: str
    method: str
    summary: str
    handler: Handler
    response: type[BaseModel] | None
    operator_only: bool = True
    query: tuple[tuple[str, str] | tuple[str, str, dict[str, Any]], ...] = ()
    request: type[BaseModel] | None = None
    text: str | None = None
    tags: tuple[str, ...] = field(default=("api",))


async def authorize(service: Service, request: Request, route: ApiRoute) -> Principal:
    """The operator token, or an access token with the operator scope (FACADE_OAUTH_OPERATOR_SCOPE),
    may use every route; an agent's token its own `/api/agents/{self}/…` routes."""
    bearer = bearer_of(request.headers.get("authorization"))
    try:
        principal = await service.token_book.authenticate(bearer, operator_first=True) if bearer else None
    except IdentityError:
        principal = None
    if principal is None:
        raise ApiError(401, "send 'Authorization: Bearer <operator token>' (FACADE_OPERATOR_TOKEN)")
    if principal.kind == "operator":
        return principal
    agent = request.path_params.get("agent")
    if route.operator_only or principal.kind != "agent" or agent != principal.agent:
        raise ApiError(403, "this route needs the operator token; an agent token reads only its own /api/agents/{self}/ routes")
    return principal


def agent_param(service: Service, request: Request) -> Agent:
    name = request.path_params["agent"]
    agent = service.agents.get(name)
    if agent is None:
        raise ApiError(404, f"unknown agent {name!r}; agents: {', '.join(sorted(service.agents))}")
    return agent


def conversation_param(request: Request) -> str | None:
    """`?conversation_id=`, checked by the same rule as a conversation an MCP call names."""
    raw = request.query_params.get("conversation_id", "").strip()
    return checked_conversation(raw, "?conversation_id=") if raw else None


async def list_agents(request: Request, service: Service, principal: Principal) -> Response:
    agents = [
        {
            "name": a.name,
            "description": a.description,
            "model": a.model,
            "context_window": a.context_window,
            "modes": service.views.modes(a, None),
        }
        for a in service.agents.values()
    ]
    return JSONResponse(body(models.Agents, {"agents": agents}))


async def agent_tools(request: Request, service: Service, principal: Principal) -> Response:
    agent = agent_param(service, request)
    report = await off_loop(tools_report, service, agent, conversation_param(request), owner=agent.name)
    return JSONResponse(body(models.AgentTools, report))


def tools_report(service: Service, agent: Agent, conversation: str | None) -> dict[str, Any]:
    """The served tools and the modes that chose them, from one view."""
    view = service.views.view(agent, conversation)
    served = view.served
    return {
        "agent": agent.name,
        "conversation": conversation,
        "modes": dict(view.modes),
        "tool_count": len(served.names),
        "bytes": served.bytes,
        "sha256": served.sha256,
        "tools": list(served.tools),
    }


async def agent_denylist(request: Request, service: Service, principal: Principal) -> Response:
    agent = agent_param(service, request)
    fmt = request.query_params.get("format", "openclaw")
    server = request.query_params.get("server_name", denylist.DEFAULT_SERVER_NAME)
    try:
        text, value = await off_loop(denylist.render, service.views, agent, conversation_param(request), fmt, server, owner=agent.name)
    except UsageError as exc:
        raise ApiError(400, str(exc)) from None
    return PlainTextResponse(text) if value is None else JSONResponse(body(models.Denylist, value))


async def agent_tools_md(request: Request, service: Service, principal: Principal) -> Response:
    agent = agent_param(service, request)
    text = await off_loop(render_tools_md, service.views, agent, conversation_param(request), service.settings.tools_template, owner=agent.name)
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


async def agent_budget_route(request: Request, service: Service, principal: Principal) -> Response:
    agent = agent_param(service, request)
    report = partial(agent_budget, base_tokens=service.settings.base_prompt_tokens)
    return JSONResponse(body(models.Budget, await off_loop(report, service.views, agent, conversation_param(request), owner=agent.name)))


async def catalogue(request: Request, service: Service, principal: Principal) -> Response:
    return JSONResponse(body(models.Catalogue, await off_loop(catalogue_report, service)))


def whole(raw: str) -> int | None:
    """`raw` as a whole number when it is 1 to 18 ASCII digits (no sign, no "²", no 5,000-digit
    string that `int` would refuse), else None."""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


def whole_number(request: Request, name: str, default: int, low: int, high: int | None = None) -> int:
    """A query parameter that must be a whole number in [low, high]."""
    value = whole(request.query_params.get(name, str(default)))
    if value is None or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"of {low} or more"
        raise ApiError(400, f"{name} must be a whole number {bounds}")
    return value


async def list_cards(request: Request, service: Service, principal: Principal) -> Response:
    """One page of cards, oldest first; `total` says how many match."""
    status = request.query_params.get("status", "pending")
    limit = whole_number(request, "limit", CARDS_PAGE, 1, MAX_PAGE)
    offset = whole_number(request, "offset", 0, 0, MAX_OFFSET)
    try:
        cards = await off_loop(service.approvals.list, status)
    except UsageError as exc:
        raise ApiError(400, str(exc)) from None
    page = cards[offset : offset + limit]
    return JSONResponse(
        body(
            models.CardPage,
            {"status": status, "total": len(cards), "limit": limit, "offset": offset, "cards": [card_view(c) for c in page]},
        )
    )


async def decision(request: Request) -> tuple[str, str]:
    """The optional JSON body of a decision (models.Decision): who decides (a name) and why."""
    raw = await request.body()
    if not raw.strip():
        return "operator", ""
    like = '{"reason": "...", "by": "your name"}'
    try:
        parsed = json.loads(raw)
    except ValueError:
        raise ApiError(400, f"the body must be JSON like {like}, or empty") from None
    if not isinstance(parsed, dict):
        raise ApiError(400, f"the body must be a JSON object like {like}")
    try:
        given = models.Decision.model_validate(parsed)
    except ValidationError as exc:
        raise ApiError(400, f"the body {validation_problems(exc)}; send {like}, or nothing") from None
    by = given.by.strip()
    return (f"operator:{by}" if by else "operator"), given.reason.strip()


def validation_problems(exc: ValidationError) -> str:
    """A model's refusal as one line that names each field: "has `by`: Input should be …"."""
    return "; ".join(
        f"has `{'.'.join(map(str, e['loc']))}`: "
        + ("an unknown field" if e["type"] == "extra_forbidden" else e["msg"].lower())
        for e in exc.errors()
    )


def card_param(request: Request) -> int:
    raw = request.path_params["card"]
    card_id = whole(raw)
    if card_id is None:
        raise ApiError(404, f"card {raw!r} does not exist; card ids are whole numbers (GET /api/cards)")
    return card_id


async def approve_card(request: Request, service: Service, principal: Principal) -> Response:
    actor, reason = await decision(request)
    card = await service.approvals.approve(card_param(request), actor, reason)
    return JSONResponse(body(models.DecidedCard, {"card": card_view(card)}))


async def deny_card(request: Request, service: Service, principal: Principal) -> Response:
    actor, reason = await decision(request)
    card = await off_loop(service.approvals.deny, card_param(request), actor, reason)
    return JSONResponse(body(models.DecidedCard, {"card": card_view(card)}))


async def delete_conversation_route(request: Request, service: Service, principal: Principal) -> Response:
    conversation = checked_conversation(request.path_params["conversation"], "the path")
    return JSONResponse(body(models.ConversationDeleted, await off_loop(delete_conversation, service, conversation, "operator")))


async def audit_log(request: Request, service: Service, principal: Principal) -> Response:
    limit = whole_number(request, "limit", 200, 1, MAX_PAGE)
    return JSONResponse(body(models.Audit, {"entries": await off_loop(service.audit.entries, limit)}))


CONVERSATION = ("conversation_id", "Evaluate in this conversation (its elevations count).")
CARDS_PAGE = 100  # cards per page unless `limit` says otherwise
MAX_PAGE = 1000
MAX_OFFSET = 1_000_000_000  # past every card a store could hold; declared, so that clients know
ROUTES: list[ApiRoute] = [
    ApiRoute("/api/agents", "GET", "The agents and their default modes.", list_agents, models.Agents),
    ApiRoute("/api/catalogue", "GET", "Capabilities per domain and tier.", catalogue, models.Catalogue),
    ApiRoute(
        "/api/agents/{agent}/tools",
        "GET",
        "The tools an agent is served.",
        agent_tools,
        models.AgentTools,
        operator_only=False,
        query=(CONVERSATION,),
    ),
    ApiRoute(
        "/api/agents/{agent}/denylist",
        "GET",
        "The catalogue tools a runtime must hide from the agent.",
        agent_denylist,
        models.Denylist,
        operator_only=False,
        query=(
            CONVERSATION,
            ("format", "The shape of the list.", {"type": "string", "enum": list(denylist.FORMATS)}),
            ("server_name", "The runtime's name for this server."),
        ),
        text="text/plain",
    ),
    ApiRoute(
        "/api/cards",
        "GET",
        "Approval cards (pending by default).",
        list_cards,
        models.CardPage,
        query=(
            ("status", "Which cards; pending by default.", {"type": "string", "enum": ["all", *STATUSES]}),
            ("limit", "Cards per page (100 by default).", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}),
            ("offset", "Cards to skip, oldest first.", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}),
        ),
    ),
    ApiRoute(
        "/api/cards/{card}/approve",
        "POST",
        "Approve a pending card; its held call runs.",
        approve_card,
        models.DecidedCard,
        request=models.Decision,
    ),
    ApiRoute(
        "/api/cards/{card}/deny",
        "POST",
        "Deny a pending card; nothing runs.",
        deny_card,
        models.DecidedCard,
        request=models.Decision,
    ),
    ApiRoute(
        "/api/conversations/{conversation}",
        "DELETE",
        "Delete a conversation: revert its elevations, cancel its pending cards.",
        delete_conversation_route,
        models.ConversationDeleted,
    ),
    ApiRoute(
        "/api/audit",
        "GET",
        "The audit log, newest first.",
        audit_log,
        models.Audit,
        query=(("limit", "How many entries.", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}),),
    ),
    ApiRoute(
        "/api/agents/{agent}/budget",
        "GET",
        "How full the agent's context window is, by segment (measured or estimated).",
        agent_budget_route,
        models.Budget,
        operator_only=False,
        query=(CONVERSATION,),
    ),
    ApiRoute(
        "/api/agents/{agent}/tools-md",
        "GET",
        "The agent's TOOLS.md.",
        agent_tools_md,
        None,
        operator_only=False,
        query=(CONVERSATION,),
        text="text/markdown",
    ),
]


def starlette_routes(service: Service, routes: list[ApiRoute]) -> list[Route]:
    def endpoint(route: ApiRoute) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            try:
                principal = await authorize(service, request, route)
                return await route.handler(request, service, principal)
            except ApiError as exc:
                return JSONResponse({"error": str(exc)}, status_code=exc.status)
            except NotFound as exc:
                return JSONResponse({"error": str(exc)}, status_code=404)
            except Conflict as exc:
                return JSONResponse({"error": str(exc)}, status_code=409)
            except Unavailable as exc:
                return JSONResponse({"error": str(exc)}, status_code=503)
            except FacadeError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)

        return handle

    # `{conversation:path}`: an id with a "/" reaches its handler and is told what to change,
    # instead of a 404 that hides a conversation nobody could revoke.
    return [Route(r.path.replace("{conversation}", "{conversation:path}"), endpoint(r), methods=[r.method]) for r in routes]

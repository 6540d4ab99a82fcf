"""Resources, prompts and completions: what the domains declare beside their tools (facade/kit/
resources.py, prompts.py), plus each agent's TOOLS.md as a resource of its own.

Visibility follows the apps: an agent lists and reads the resources and prompts of the domains
in its `[apps]` (in any mode; they hold no operation to enforce), and its own TOOLS.md, which
no other agent lists or reads. A runtime token (one connection for many agents) sees every
domain's resources and prompts, and no agent's TOOLS.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from facade.errors import DomainError
from facade.kit.capability import CallContext
from facade.kit.prompts import Prompt
from facade.kit.resources import Resource
from facade.mcp.content import resource_contents, to_block
from facade.mcp.fanout import Fanout, tools_md_uri
from facade.reports.toolsmd import TOOLS_FILE, render_tools_md
from facade.serving.metrics import RUNTIME
from facade.serving.service import Service
from facade.threads import off_loop

# Whose request it is: (agent, or None for a runtime; conversation); the server's own resolution.
Whose = Callable[[ServerRequestContext[Any]], tuple[str | None, str | None]]
MAX_COMPLETIONS = 100  # the spec's most values per completion result


class Offered:
    """The resources and prompts one caller may see, by the apps of its agent."""

    def __init__(self, service: Callable[[], Service]) -> None:
        self._service = service

    @property
    def service(self) -> Service:
        return self._service()

    def domains(self, agent: str | None) -> Iterator[str]:
        apps = None if agent is None else self.service.agents[agent].apps
        return (name for name in self.service.registry.domains if apps is None or name in apps)

    def resources(self, agent: str | None) -> list[Resource]:
        registry = self.service.registry
        return [r for d in self.domains(agent) for r in registry.domains[d].resources]

    def prompts(self, agent: str | None) -> list[Prompt]:
        registry = self.service.registry
        return [p for d in self.domains(agent) for p in registry.domains[d].prompts]

    def resource(self, agent: str | None, uri: str) -> tuple[Resource, dict[str, str]]:
        for resource in self.resources(agent):
            params = resource.match(uri)
            if params is not None:
                return resource, params
        raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}; resources/list names the resources you may read")

    def prompt(self, agent: str | None, name: str) -> Prompt:
        for prompt in self.prompts(agent):
            if prompt.name == name:
                return prompt
        raise MCPError(types.INVALID_PARAMS, f"unknown prompt {name!r}; prompts/list names the prompts you may get")


def install(server: Server[Any], service: Callable[[], Service], whose: Whose, fanout: Fanout) -> None:
    """Serve resources, resource templates, subscriptions, prompts and completions on `server`;
    `fanout` keeps the handshake-era subscriptions (TOOLS.md changes with an elevation).
    `service()` is the service, asked for by each request (stdio builds it after the greeting)."""
    offered = Offered(service)

    async def list_resources(ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        agent, _ = whose(ctx)
        listed = [
            types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in offered.resources(agent)
            if not r.is_template
        ]
        if agent is not None:
            listed.insert(0, types.Resource(
                uri=tools_md_uri(agent), name=TOOLS_FILE, mime_type="text/markdown",
                description=f"The rules every tool of agent {agent} follows, and its apps with their modes.",
            ))
        return types.ListResourcesResult(resources=listed)

    async def list_templates(ctx: ServerRequestContext[Any], params: Any) -> types.ListResourceTemplatesResult:
        agent, _ = whose(ctx)
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in offered.resources(agent)
            if r.is_template
        ])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        agent, conversation = whose(ctx)
        uri = str(params.uri)
        if agent is not None and uri == tools_md_uri(agent):
            service = offered.service
            text = await off_loop(
                render_tools_md, service.views, service.agents[agent], conversation, service.settings.tools_template,
                owner=agent,
            )
            return types.ReadResourceResult(contents=[resource_contents(uri, "text/markdown", text)])
        resource, parts = offered.resource(agent, uri)
        value = await off_loop(_read, resource, parts, agent, conversation, owner=agent or RUNTIME)
        return types.ReadResourceResult(contents=[resource_contents(uri, resource.mime_type, value)])

    def _read(resource: Resource, parts: dict[str, str], agent: str | None, conversation: str | None) -> str | bytes:
        ctx = CallContext(agent or "", conversation, offered.service.sessions)
        try:
            return resource.read(ctx, parts)
        except DomainError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        finally:
            if ctx.opened_db is not None:
                ctx.opened_db.close()

    async def subscribe(ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> types.EmptyResult:
        # Accepted for a resource the caller may read, refused for any other. Of those, only an
        # agent's TOOLS.md changes while the server runs (with an elevation): facade/mcp/fanout.py.
        agent, _ = whose(ctx)
        uri = str(params.uri)
        if agent is None or uri != tools_md_uri(agent):
            offered.resource(agent, uri)
        session_id = ctx.session._connection.session_id  # noqa: SLF001 - SDK exposes no accessor
        if session_id is not None:
            fanout.subscribe(session_id, uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        session_id = ctx.session._connection.session_id  # noqa: SLF001 - SDK exposes no accessor
        if session_id is not None:
            fanout.unsubscribe(session_id, str(params.uri))
        return types.EmptyResult()

    async def list_prompts(ctx: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        agent, _ = whose(ctx)
        return types.ListPromptsResult(prompts=[
            types.Prompt(
                name=p.name,
                description=p.description,
                arguments=[types.PromptArgument(name=a.name, description=a.description or None, required=a.required) for a in p.arguments],
            )
            for p in offered.prompts(agent)
        ])

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
        agent, _ = whose(ctx)
        prompt = offered.prompt(agent, params.name)
        try:
            messages = prompt.messages(dict(params.arguments or {}))
        except DomainError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        return types.GetPromptResult(
            description=prompt.description,
            messages=[types.PromptMessage(role=m.role, content=to_block(m.content)) for m in messages],
        )

    async def complete(ctx: ServerRequestContext[Any], params: types.CompleteRequestParams) -> types.CompleteResult:
        agent, _ = whose(ctx)
        name, value = params.argument.name, params.argument.value
        completer = None
        if isinstance(params.ref, types.PromptReference):
            argument = next((a for a in offered.prompt(agent, params.ref.name).arguments if a.name == name), None)
            completer = argument.complete if argument is not None else None
        else:
            template = next((r for r in offered.resources(agent) if r.uri == params.ref.uri), None)
            if template is None:
                raise MCPError(types.INVALID_PARAMS, f"unknown resource template {params.ref.uri!r}")
            completer = template.complete.get(name)
        values = list(completer(value)) if completer is not None else []
        return types.CompleteResult(completion=types.Completion(
            values=values[:MAX_COMPLETIONS], total=len(values), has_more=len(values) > MAX_COMPLETIONS
        ))

    for method, params_type, handler in (
        ("resources/list", types.PaginatedRequestParams, list_resources),
        ("resources/templates/list", types.PaginatedRequestParams, list_templates),
        ("resources/read", types.ReadResourceRequestParams, read_resource),
        ("resources/subscribe", types.SubscribeRequestParams, subscribe),
        ("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe),
        ("prompts/list", types.PaginatedRequestParams, list_prompts),
        ("prompts/get", types.GetPromptRequestParams, get_prompt),
        ("completion/complete", types.CompleteRequestParams, complete),
    ):
        server.add_request_handler(method, params_type, handler)

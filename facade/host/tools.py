"""The MCP side of the host: the facade's tools for one agent in one conversation, kept fresh.

Connected through the identity hook (facade/host/identity_hook.py), in either protocol era. The
tools from `tools/list` are what the model may call. A `notifications/tools/list_changed` —
heard on the handshake era's GET stream, or on a 2026-07-28 `subscriptions/listen` stream —
only marks the list stale; it is fetched again right before the next model call, so an
elevation approved between two model turns reaches the very next one. With no change channel
at all the list is fetched before every call: slower, never wrong.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from facade.host.disclosure import DEFERRED_META_KEY
from facade.host.answers import HostAnswers
from facade.host.identity_hook import IdentifiedClient, IdentityHook, connect
from facade.host.permissions import Prompter
from facade.host.messages import ToolSpec

APPROVAL_META_KEY = "facade/approval"


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call returned, as the model will read it.

    Attributes:
        text: the result's text content (its structured content as compact JSON when it has
            no text).
        is_error: the tool failed, or the call never reached it.
        data: the structured content, when the tool returned one.
    """

    text: str
    is_error: bool
    data: Any = None


def endpoints(url: str) -> tuple[str, str]:
    """(MCP endpoint, server root) from either: `FACADE_URL` names the MCP endpoint for some
    commands and the server root for others, so both spellings are accepted."""
    url = url.rstrip("/")
    if url.endswith("/mcp"):
        return url, url[: -len("/mcp")]
    return url + "/mcp", url


def spec_of(tool: types.Tool) -> ToolSpec:
    meta = tool.meta or {}
    annotations = tool.annotations
    return ToolSpec(
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema or {"type": "object", "properties": {}}),
        approval=int(meta.get(APPROVAL_META_KEY) or 0),
        read_only=bool(annotations and annotations.read_only_hint),
        deferred=meta.get(DEFERRED_META_KEY) is True,
        # Only a hint given: a server that leaves it out of every write to save bytes (this
        # facade does) would otherwise have every write asked about; approval 1 marks those.
        destructive=bool(annotations and annotations.destructive_hint and not annotations.read_only_hint),
    )


def outcome_of(result: types.CallToolResult) -> ToolOutcome:
    text = "".join(getattr(block, "text", "") for block in result.content)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)
    return ToolOutcome(text, bool(result.is_error), result.structured_content)


class FacadeTools:
    """The tools of `agent` in one conversation, re-fetched when the server says they changed.

    Attributes:
        agent: the agent whose view this is.
        conversation_id: the conversation every call carries.
        modern: the connection speaks 2026-07-28 (changes come through subscriptions/listen).
        watching: a change channel is open (otherwise every `tools()` call re-fetches).
        changes: list_changed notifications heard so far.
        fetches: `tools/list` requests made so far.
    """

    def __init__(
        self, agent: str, client: IdentifiedClient, api: httpx2.AsyncClient, base: str, answers: HostAnswers | None = None
    ) -> None:
        self.agent = agent
        self.answers = answers or HostAnswers()
        self.client = client
        self.api = api
        self.base = base
        self.conversation_id = client.hook.conversation_id
        self.modern = False
        self.watching = False
        self.changes = 0
        self.fetches = 0
        self._stale = True
        self._tools: list[ToolSpec] = []
        self._changed = anyio.Event()
        self._tools_md: tuple[int, str | None] | None = None

    def mark_stale(self) -> None:
        self._stale = True
        self.changes += 1
        self._changed.set()
        self._changed = anyio.Event()

    @property
    def stale(self) -> bool:
        return self._stale or not self.watching

    async def wait_for_change(self, seen: int, timeout: float = 15) -> None:
        """Until more than `seen` list_changed have been heard."""
        with anyio.fail_after(timeout):
            while self.changes <= seen:
                await self._changed.wait()

    async def tools(self) -> list[ToolSpec]:
        """The current tools, fetched again when stale."""
        if self.stale:
            # Cleared before the fetch: a change heard while it runs marks the result stale again.
            self._stale = False
            self._tools = [spec_of(t) for t in await self.client.list_tools()]
            self.fetches += 1
        return self._tools

    def spec(self, name: str) -> ToolSpec | None:
        return next((t for t in self._tools if t.name == name), None)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Run a tool with the hook's identity. A failure on the way is an error outcome the
        model reads, never an exception that ends the session."""
        self.answers.in_flight = (name, arguments)  # the server's questions about it (facade/host/answers.py)
        try:
            return outcome_of(await self.client.call_tool(name, arguments))
        except MCPError as exc:
            return ToolOutcome(f"The facade refused the call to {name}: {exc}", True)
        except (httpx2.HTTPError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            return ToolOutcome(f"The call to {name} did not reach the facade ({exc.__class__.__name__}: {exc}); it may be restarting.", True)
        finally:
            self.answers.in_flight = None

    async def tools_md(self) -> str | None:
        """The agent's TOOLS.md for this conversation (it follows elevations), fetched again
        when the tool list was; None when the server has none to give."""
        if self._tools_md is not None and self._tools_md[0] == self.fetches:
            return self._tools_md[1]
        url = f"{self.base}/api/agents/{self.agent}/tools-md"
        try:
            response = await self.api.get(url, params={"conversation_id": self.conversation_id})
            text = response.text if response.status_code == 200 else None
        except httpx2.HTTPError:
            text = None
        self._tools_md = (self.fetches, text)
        return text


@contextlib.asynccontextmanager
async def open_tools(
    url: str, *, agent: str, token: str, conversation_id: str, mode: str = "auto", prompter: Prompter | None = None
) -> AsyncIterator[FacadeTools]:
    """Connect `agent` to the facade at `url` for one conversation; the server's questions are
    answered by `HostAnswers` (the prompter for forms)."""
    answers = HostAnswers(prompter)
    mcp_url, base = endpoints(url)
    hook = IdentityHook(token, conversation_id)
    holder: list[FacadeTools] = []

    async def on_message(message: Any) -> None:
        # Handshake era only: a 2026-07-28 listen stream's events reach this handler too, and
        # are counted once, by the pump below.
        if isinstance(message, types.ToolListChangedNotification) and holder and not holder[0].modern:
            holder[0].mark_stale()

    async with (
        connect(mcp_url, hook, mode=mode, message_handler=on_message, elicitation_callback=answers) as client,
        httpx2.AsyncClient(headers=hook.headers(), timeout=30) as api,
    ):
        tools = FacadeTools(agent, client, api, base, answers)
        tools.modern = client.client.protocol_version in MODERN_PROTOCOL_VERSIONS
        holder.append(tools)
        if not tools.modern:
            # Handshake era: the SDK keeps a GET stream open; its notifications reach on_message.
            capability = client.client.server_capabilities.tools
            tools.watching = bool(capability and capability.list_changed)
            yield tools
            return
        async with contextlib.AsyncExitStack() as stack:
            try:
                subscription = await stack.enter_async_context(client.client.listen(tools_list_changed=True))
            except (MCPError, ListenNotSupportedError, SubscriptionLost, TimeoutError):
                subscription = None
            if subscription is None:
                # No change channel: `watching` stays False and the list is fetched before every call.
                yield tools
                return
            tools.watching = bool(subscription.honored and subscription.honored.tools_list_changed)
            group = await stack.enter_async_context(anyio.create_task_group())

            async def pump() -> None:
                try:
                    async for _event in subscription:
                        tools.mark_stale()
                except Exception:
                    # However the stream ends (SubscriptionLost, a dropped connection), the
                    # session goes on: without a channel the list is fetched before every call.
                    pass
                tools.watching = False

            group.start_soon(pump)
            try:
                yield tools
            finally:
                group.cancel_scope.cancel()

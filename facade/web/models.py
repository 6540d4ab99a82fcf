"""The bodies of the HTTP API, once, as pydantic models: each route builds its answer through its
model (`body(Model, value)`) and reads its request with it, and `/openapi.json` is generated from
the same models (facade/web/openapi.py), so the description and the behaviour cannot drift. A
report that grows a key its model lacks fails the route's tests instead of going undescribed."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from facade.access.cards import Status as CardStatus
from facade.kit.capability import Mode
from facade.tokencount import Source


class Body(BaseModel):
    """An API body: every key named, nothing else."""

    model_config = ConfigDict(extra="forbid")


def body(model: type[BaseModel], value: Any) -> Any:
    """`value` checked against `model`, as the JSON the route sends (keys the value did not
    have stay absent)."""
    return model.model_validate(value).model_dump(mode="json", exclude_unset=True)


# --- requests -----------------------------------------------------------------------------------


class Decision(Body):
    """Who decides a card (a name, shown in the audit log as `operator:<by>`) and why. The body
    may be left out, or be `{}`."""

    by: str = Field("", max_length=80, description="Your name, for the audit log.")
    reason: str = Field("", max_length=2000, description="Why; shown to the agent and audited.")


# --- answers ------------------------------------------------------------------------------------


class Error(Body):
    """A refusal that says what to change."""

    error: str


class Health(Body):
    """`/healthz` (liveness) and `/readyz` (readiness): `status` is `ok`, or `degraded` with a
    503 when a store the server needs is unreachable."""

    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable"]
    redis: str | None = Field(None, description="Readiness only, when Redis is configured: ok or unreachable.")
    capabilities: int | None = None
    agents: list[str] | None = None


class AgentSummary(Body):
    name: str
    description: str
    model: str
    context_window: int | None
    modes: dict[str, Mode] = Field(description="Each app the agent may use and its default mode.")


class Agents(Body):
    agents: list[AgentSummary]


class ServedTool(BaseModel):
    """One tool exactly as tools/list serves it (MCP's Tool object)."""

    model_config = ConfigDict(extra="allow")
    name: str
    inputSchema: dict[str, Any]
    description: str | None = None


class AgentTools(Body):
    agent: str
    conversation: str | None
    modes: dict[str, Mode]
    tool_count: int
    bytes: int = Field(description="The served tools array's size, compact JSON.")
    sha256: str
    tools: list[ServedTool]


class OpenClawDenylist(Body):
    """`format=openclaw` (the default): the runtime's own config shape."""

    tools: dict[Literal["deny"], list[str]]


class JsonDenylist(Body):
    """`format=json`."""

    agent: str
    conversation: str | None
    server: str
    deny: list[str]


class Denylist(RootModel[OpenClawDenylist | JsonDenylist]):
    """The deny-list in the shape `format` asks for (`lines` answers text/plain instead)."""


class DomainCounts(Body):
    default_mode: Mode
    core: int
    full: int
    total: int


class Catalogue(Body):
    capabilities: int
    domains: dict[str, DomainCounts]


class Card(Body):
    card_id: int
    status: CardStatus
    tool: str
    arguments: dict[str, Any] = Field(description="The held call's arguments, without identity fields.")
    agent: str
    conversation: str
    reason: str
    created_at: float = Field(description="Unix time.")
    expires_at: float
    decided_by: str | None = None
    decided_at: float | None = None
    decision_reason: str | None = None
    outcome: dict[str, Any] | None = Field(None, description='Once run: {"ok": true, "data": …} or {"ok": false, "error": …}.')


class CardPage(Body):
    status: Literal["all"] | CardStatus
    total: int = Field(description="How many cards match, on every page.")
    limit: int
    offset: int
    cards: list[Card]


class DecidedCard(Body):
    card: Card


class Reverted(Body):
    agent: str
    domain: str


class ConversationDeleted(Body):
    conversation: str
    reverted: list[Reverted] = Field(description="The elevations reverted to the defaults.")
    cancelled_cards: list[int]


class AuditEntry(Body):
    id: int
    at: str = Field(description="ISO 8601, UTC.")
    actor: str
    action: str
    card_id: int | None
    agent: str | None
    conversation: str | None
    subject: str
    reason: str


class Audit(Body):
    entries: list[AuditEntry]


class Segment(Body):
    tokens: int
    source: Source


class WorkspaceFile(Body):
    file: str
    missing: bool
    tokens: int
    source: Source
    bytes: int | None = None


class SystemPromptSegment(Segment):
    files: list[WorkspaceFile]


class AppShare(Body):
    domain: str
    mode: Mode
    tools: int
    bytes: int
    tokens: int
    source: Source


class AlwaysLoaded(Body):
    tools: int
    tokens: int
    limit: int = Field(description="The most an agent that discloses by search may always load.")


class Deferred(Body):
    tools: int = Field(description="Listed, marked deferred: loaded when the model finds them.")
    listed_tokens: int = Field(description="The whole listing, deferred tools included.")
    source: Source


class DisclosureShare(Body):
    mode: Literal["all", "search"]
    always_loaded: AlwaysLoaded | None = None
    deferred: Deferred | None = None


class AppsSegment(Segment):
    bytes: int
    era: str = Field(description="The protocol era whose wire form was counted.")
    domains: list[AppShare]
    disclosure: DisclosureShare = Field(
        description='"all": the segment is the whole listing; "search": its always-loaded part, the rest deferred.'
    )


class FreeSegment(Body):
    tokens: int | None = Field(description="Null when the model's window is unknown.")
    source: Source


class Segments(Body):
    base: Segment
    system_prompt: SystemPromptSegment
    apps: AppsSegment
    free: FreeSegment


class Budget(Body):
    agent: str
    conversation: str | None
    model: str | None
    model_window: int | None = Field(description="Null when unknown; never invented.")
    tokenizer: str | None
    segments: Segments
    used: int
    over_budget: bool
    overshoot: int | None
    notes: list[str]

"""Running one tool call: identity, enforcement, validation, the handler.

Transport-agnostic: the MCP layer (HTTP and stdio) turns a request into a `CallRequest` and an
`Outcome` (facade/serving/outcomes.py) into a `CallToolResult`. Every failure becomes an
`Outcome` whose message says what to change; nothing here raises into the transport.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog
from pydantic import BaseModel, ValidationError
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.orm import Session

from facade.catalogue.agents import Agent
from facade.access.approvals import Approvals
from facade.access.audit import Audit
from facade.kit import deadline
from facade.kit.capability import IDENTITY_FIELDS, Approval, CallContext, Capability
from facade.access.cards import DEFAULT_CARD_TTL_SECONDS, DEFAULT_MAX_PENDING_CARDS, Card, CardStore
from facade.access.changes import Changes
from facade.access.elevation import DEFAULT_TTL_SECONDS
from facade.errors import IdentityError, Unavailable
from facade.access.identity import Caller, TokenBook, resolve_caller, resolve_conversation
from facade.access.selfservice import AgentSelfService
from facade.catalogue.views import Views
from facade.logs import bind, log_scope
from facade.serving.callsessions import CallSessions
from facade.serving.metrics import Metrics
from facade.serving.storable import check_storable
from facade.access.consent import Consent
from facade.kit.asking import InputNeeded
from facade.kit.content import Block
from facade.serving.outcomes import Outcome, as_result, explain_validation, failed, unknown_tool_message
from facade.threads import off_loop

log = structlog.get_logger("facade.serving.calls")
# How many times an idempotent capability that lost a race to a concurrent call is run again.
IDEMPOTENT_RETRIES = 2


@dataclass(frozen=True, slots=True)
class CallRequest:
    """A `tools/call` as the transport received it.

    Attributes:
        fixed_agent: the agent of a connection that is one agent by construction (stdio).
    """

    name: str
    arguments: Mapping[str, Any] | None
    bearer: str | None = None
    conversation_header: str | None = None
    meta: Mapping[str, Any] | None = None
    session_id: str | None = None
    fixed_agent: str | None = None


class Calls:
    """Executes calls against a registry with the views, tokens and database it is given;
    approval-2 calls are held as cards (facade/access/approvals.py) instead of run.

    It builds its `Approvals`, whose runner is its own `run_approved`: an approved card's call
    runs through the same code as any call. `hold_refusal`, when set, refuses every approval-2
    call with that message instead of holding it (a process whose cards no operator can reach).
    `connect`, when set, gives each thread's call sessions a connection of their own
    (facade/serving/callsessions.py). The event loop never waits on I/O here: the view
    (elevations, over Redis), the card store and the database are all reached from worker
    threads.
    """

    def __init__(
        self,
        views: Views,
        tokens: TokenBook,
        session_factory: Callable[[], Session] | None,
        cards: CardStore,
        audit: Audit,
        *,
        metrics: Metrics | None = None,
        changes: Changes | None = None,
        elevation_ttl: float = DEFAULT_TTL_SECONDS,
        card_ttl: float = DEFAULT_CARD_TTL_SECONDS,
        max_pending_cards: int = DEFAULT_MAX_PENDING_CARDS,
        call_deadline: float = deadline.DEFAULT_SECONDS,
        hold_refusal: str | None = None,
        connect: Callable[[], Connection] | None = None,
    ) -> None:
        self.views = views
        self.tokens = tokens
        self.sessions = CallSessions(session_factory, connect) if session_factory is not None else None
        self.approvals = Approvals(cards, audit, self.run_approved, card_ttl=card_ttl, max_pending=max_pending_cards)
        self.metrics = metrics or Metrics()
        self.changes = changes
        self.elevation_ttl = elevation_ttl
        self.hold_refusal = hold_refusal
        self.call_deadline = call_deadline
        self.consent = Consent(audit)

    async def run(self, request: CallRequest) -> Outcome:
        started = time.perf_counter()
        with log_scope():  # the agent and conversation, bound once known, end with the call
            outcome = await self._run(request)
            seconds = time.perf_counter() - started
            domain = request.name.partition(".")[0]
            known = self.views.registry.domain(domain) is not None  # a made-up name is no label
            self.metrics.called(outcome.agent, domain if known else None, outcome.status, seconds)
            log.info(
                "tool.call",
                tool=request.name,
                agent=outcome.agent,
                conversation=outcome.conversation,
                outcome=outcome.status,
                duration_ms=round(seconds * 1000, 2),
            )
        return outcome

    async def _run(self, request: CallRequest) -> Outcome:
        raw = request.arguments if request.arguments is not None else {}
        if not isinstance(raw, Mapping):
            return Outcome("invalid_arguments", error="arguments must be a JSON object of parameter names to values")
        injected_token = raw.get("auth_token") if isinstance(raw.get("auth_token"), str) else None
        injected_conversation = raw.get("conversation_id") if isinstance(raw.get("conversation_id"), str) else None
        try:
            caller = (
                Caller(request.fixed_agent)
                if request.fixed_agent
                else resolve_caller(self.tokens, bearer=request.bearer, injected=injected_token)
            )
            conversation = resolve_conversation(
                injected=injected_conversation,
                header=request.conversation_header,
                meta=request.meta,
                session_id=request.session_id,
                via_runtime=caller.via_runtime,
            )
        except IdentityError as exc:
            return Outcome("identity", error=str(exc))
        agent = self.views.agents[caller.agent]
        bind(agent=agent.name, conversation=conversation)
        # A thread hop was ~10% of a call's CPU under load (2026-12, issue 17): only for Redis.
        if self.views.reads_without_io:
            view = self.views.view(agent, conversation)
        else:
            view = await off_loop(self.views.view, agent, conversation, owner=agent.name)
        capability = view.resolve(request.name)
        if capability is None:
            return Outcome("unknown_tool", error=unknown_tool_message(request.name), agent=agent.name, conversation=conversation)
        try:
            args = _parse(capability, raw, conversation)
        except ValidationError as exc:
            return Outcome(
                "invalid_arguments",
                error=explain_validation(capability, exc),
                agent=agent.name,
                conversation=conversation,
            )
        if capability.approval == Approval.OPERATOR:
            if self.hold_refusal is not None:
                return Outcome("refused", error=f"{capability.name} {self.hold_refusal}", agent=agent.name, conversation=conversation)
            return await self._hold(capability, args, agent, conversation)
        if capability.approval == Approval.HOST:  # the user behind the client is asked first (access/consent.py)
            who = {"agent": agent.name, "conversation": conversation}
            try:
                refusal = await self.consent.refusal(capability, args, agent.name, conversation)
            except InputNeeded as exc:
                return Outcome("input_required", question=exc.question, state=exc.state, **who)
            if refusal is not None:
                return Outcome("refused", error=refusal, **who)
        return await self._execute(capability, args, agent, conversation)

    async def _hold(self, capability: Capability, args: BaseModel, agent: Agent, conversation: str | None) -> Outcome:
        """Check the call can run, then hold it as a card for an operator; nothing runs yet."""
        who = {"agent": agent.name, "conversation": conversation}
        if conversation is None:
            return Outcome(
                "invalid_arguments",
                error=f"{capability.name} needs an operator's approval, which belongs to a conversation; "
                "send the conversation_id (or an X-Conversation-Id header)",
                **who,
            )
        try:
            card, created = await off_loop(self._precheck_and_hold, capability, args, agent, conversation, owner=agent.name)
        except Unavailable as exc:  # the card store (Redis) is away
            return Outcome("unavailable", error=str(exc), **who)
        except Exception as exc:
            return failed(capability, exc, who)
        note = "" if created else " (the same request was already pending; no new card was made)"
        return Outcome(
            "held",
            data={
                "card_id": card.id,
                "status": card.status,
                "held": capability.name,
                "message": f"held for an operator's approval as card {card.id}{note}; nothing has run yet. "
                f"Check it with skills.card_status {{\"card_id\": {card.id}}}.",
            },
            **who,
        )

    def _precheck_and_hold(
        self, capability: Capability, args: BaseModel, agent: Agent, conversation: str
    ) -> tuple[Card, bool]:
        """In a worker thread: the precheck, the card store and the audit log all do I/O."""
        if capability.precheck is not None:
            ctx = self._context(agent, conversation)
            try:
                capability.precheck(ctx, args)
            finally:  # a precheck only looks: nothing it did is committed
                if ctx.opened_db is not None and self.sessions is not None:
                    self.sessions.finish(ctx.opened_db, failed=True)
        arguments = {k: v for k, v in args.model_dump(mode="json").items() if k not in IDENTITY_FIELDS}
        return self.approvals.hold(capability, arguments, agent.name, conversation)

    async def run_approved(self, card: Card) -> dict[str, Any]:
        """Run an approved card's call with its original identity; the outcome is kept on the card."""
        agent = self.views.agents.get(card.agent)
        view = await off_loop(self.views.view, agent, card.conversation, owner=agent.name) if agent is not None else None
        capability = view.resolve(card.tool) if view is not None else None
        if agent is None or capability is None:
            return {"ok": False, "error": f"{card.tool} is no longer available to {card.agent}; nothing ran"}
        try:
            args = _parse(capability, card.arguments, card.conversation)
        except ValidationError as exc:
            return {"ok": False, "error": explain_validation(capability, exc)}
        outcome = await self._execute(capability, args, agent, card.conversation, approved_card=card.id)
        log.info("card.ran", card=card.id, tool=card.tool, agent=card.agent, outcome=outcome.status)
        return {"ok": True, "data": outcome.data} if outcome.ok else {"ok": False, "error": outcome.error}

    def _context(self, agent: Agent, conversation: str | None, approved_card: int | None = None) -> CallContext:
        facade = AgentSelfService(
            self.views,
            agent,
            conversation,
            self.approvals,
            on_granted=self.changes.publish if (approved_card is not None and self.changes) else None,
            elevation_ttl=self.elevation_ttl,
        )
        return CallContext(agent.name, conversation, self.sessions, facade, approved_card)

    async def _execute(
        self,
        capability: Capability,
        args: BaseModel,
        agent: Agent,
        conversation: str | None,
        approved_card: int | None = None,
    ) -> Outcome:
        who = {"agent": agent.name, "conversation": conversation}
        # An idempotent capability that loses a race is run again on a fresh session: the next
        # run sees what the winner wrote (a concurrent rescan finds those files imported).
        retries = IDEMPOTENT_RETRIES if capability.annotations.idempotent else 0
        while True:
            ctx = self._context(agent, conversation, approved_card)
            try:
                with deadline.limited(self.call_deadline):  # the worker thread inherits it
                    if capability.is_async:
                        data, blocks = await _run_async(capability, ctx, args, self.sessions)
                    else:
                        data, blocks = await off_loop(_run_sync, capability, ctx, args, self.sessions, owner=agent.name)
                return Outcome("ok", data=data, blocks=blocks, **who)
            except InputNeeded as exc:  # 2026-07-28: the handler asked its user; the answer comes next round
                return Outcome("input_required", question=exc.question, state=exc.state, **who)
            except (IntegrityError, StaleDataError) as exc:
                if retries == 0:
                    return failed(capability, exc, who)
                retries -= 1
                log.info("tool.conflict_retried", tool=capability.name)
            except Exception as exc:
                return failed(capability, exc, who)


def _parse(capability: Capability, arguments: Mapping[str, Any], conversation: str | None) -> BaseModel:
    """The call's arguments validated, and holding nothing a database cannot store. Handlers
    never see a token: the identity fields carry the resolved conversation only."""
    args = capability.parsed_model.model_validate({**arguments, "auth_token": "", "conversation_id": conversation or ""})
    check_storable(args)
    return args


Result = tuple[dict[str, Any] | None, tuple[Block, ...]]


def _run_sync(capability: Capability, ctx: CallContext, args: BaseModel, sessions: CallSessions | None) -> Result:
    # In the worker thread with the handler: its commit, the session's close and the result's
    # conversion, so the event loop never waits on the database.
    with _settled(ctx, sessions):
        result = capability.handler(ctx, args)
    return as_result(result)


async def _run_async(capability: Capability, ctx: CallContext, args: BaseModel, sessions: CallSessions | None) -> Result:
    with _settled(ctx, sessions):
        result = await capability.handler(ctx, args)  # type: ignore[misc]
    return as_result(result)


class _settled:  # noqa: N801 - used as a function: `with _settled(ctx, sessions):`
    """The call's session, if it opened one, ended as the call went (facade/serving/callsessions.py).
    A class rather than a generator: it runs on every call (issue 17)."""

    __slots__ = ("ctx", "sessions")

    def __init__(self, ctx: CallContext, sessions: CallSessions | None) -> None:
        self.ctx = ctx
        self.sessions = sessions

    def __enter__(self) -> None:
        pass

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if self.ctx.opened_db is not None and self.sessions is not None:
            self.sessions.finish(self.ctx.opened_db, failed=kind is not None)

"""Asking the user through the client (MCP elicitation), in each protocol era: the `Asker` a
call's questions go to (facade/kit/asking.py).

- 2025-11-25 and before: `elicitation/create` is sent on the call's own stream and awaited.
- 2026-07-28: a question the client has not answered yet ends this round; the call's result
  is an `InputRequiredResult` carrying it, keyed by the question's digest. The client asks its
  user and sends the same call again with `inputResponses`; the handler runs again and, asking
  the same question, gets the answer. An answer counts only for the exact question it was
  given for, so a changed argument (which changes the summary) asks again.

A client that declared no elicitation capability is never asked: `CannotAsk`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from facade.kit.asking import Answer, CannotAsk, InputNeeded, Question

ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())
NO_ELICITATION = (
    "this client cannot ask its user: it declared no elicitation capability; nothing was asked"
)


def _answer(result: types.ElicitResult) -> Answer:
    return Answer(result.action, dict(result.content) if result.content is not None else None)


class SessionAsker:
    """2025-11-25: `elicitation/create` on the call's stream, answered while the call waits."""

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self.ctx = ctx

    async def ask(self, question: Question) -> Answer:
        if not self.ctx.session.check_client_capability(ELICITATION):
            raise CannotAsk(NO_ELICITATION)
        result = await self.ctx.session.elicit_form(
            question.message, dict(question.schema), related_request_id=self.ctx.request_id
        )
        return _answer(result)


class RoundTripAsker:
    """2026-07-28: answers from the call's `inputResponses`; an unanswered question ends the round."""

    def __init__(self, ctx: ServerRequestContext[Any], responses: Mapping[str, Any] | None) -> None:
        self.ctx = ctx
        self.responses = dict(responses or {})

    async def ask(self, question: Question) -> Answer:
        if not self.ctx.session.check_client_capability(ELICITATION):
            raise CannotAsk(NO_ELICITATION)
        given = self.responses.get(question.key)
        if isinstance(given, types.ElicitResult):
            return _answer(given)
        if given is not None:  # the SDK parsed it as another kind of response: read it as one
            try:
                return _answer(types.ElicitResult.model_validate(given, from_attributes=True))
            except ValueError:
                pass
        raise InputNeeded(question)


def asker_for(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> SessionAsker | RoundTripAsker:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return RoundTripAsker(ctx, params.input_responses)
    return SessionAsker(ctx)


def input_required(question: Question) -> types.InputRequiredResult:
    """The round's result: the question, for the client to put to its user and send back."""
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=question.message, requested_schema=dict(question.schema))
    )
    # requestState names the question too; the digest key alone already binds the answer to it.
    return types.InputRequiredResult(input_requests={question.key: request}, request_state=question.key)

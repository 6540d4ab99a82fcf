"""Asking the user through the client (MCP elicitation), in each protocol era: the `Asker` a
call's questions go to (facade/kit/asking.py).

- 2025-11-25 and before: `elicitation/create` is sent on the call's own stream and awaited.
- 2026-07-28: a question the client has not answered yet ends this round; the call's result
  is an `InputRequiredResult` carrying it, keyed by the question's digest. The client asks its
  user and sends the same call again with `inputResponses`; the handler runs again and, asking
  the same question, gets the answer. An answer counts only for the exact question it was
  given for, so a changed argument (which changes the summary) asks again. The answers of
  earlier rounds ride `requestState`, so a call that asks twice (an approval-1 confirmation,
  then the capability's own question) has both on its third round. The state holds nothing
  the client could not have sent as an answer itself, so it needs no seal.

A client that declared no elicitation capability is never asked: `CannotAsk`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from facade.kit.asking import Answer, CannotAsk, InputNeeded, Question

ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())
NO_ELICITATION = (
    "this client cannot ask its user: it declared no elicitation capability"
)
MAX_STATE_CHARS = 16_384  # a call asks a handful of questions; a larger state is not ours


def _answer(result: types.ElicitResult) -> Answer:
    return Answer(result.action, dict(result.content) if result.content is not None else None)


class SessionAsker:
    """2025-11-25: `elicitation/create` on the call's stream, answered while the call waits."""

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self.ctx = ctx

    async def ask(self, question: Question) -> Answer:
        if not self.ctx.session.check_client_capability(ELICITATION):
            raise CannotAsk(NO_ELICITATION)
        try:
            result = await self.ctx.session.elicit_form(
                question.message, dict(question.schema), related_request_id=self.ctx.request_id
            )
        except Exception as exc:  # an error answer, or no way back to the client on this request
            raise CannotAsk(f"this client cannot ask its user ({exc})") from None
        return _answer(result)


class RoundTripAsker:
    """2026-07-28: answers from the call's `inputResponses` and the earlier rounds' (in
    `requestState`); an unanswered question ends the round."""

    def __init__(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> None:
        self.ctx = ctx
        self.answers: dict[str, Answer] = decode_state(params.request_state)
        for key, given in (params.input_responses or {}).items():
            answer = _parsed(given)
            if answer is not None:
                self.answers[key] = answer

    async def ask(self, question: Question) -> Answer:
        if not self.ctx.session.check_client_capability(ELICITATION):
            raise CannotAsk(NO_ELICITATION)
        answer = self.answers.get(question.key)
        if answer is None:
            raise InputNeeded(question, encode_state(self.answers))
        return answer


def _parsed(given: Any) -> Answer | None:
    if isinstance(given, types.ElicitResult):
        return _answer(given)
    try:  # the SDK parsed it as another kind of response, or it came from the state: read it as one
        return _answer(types.ElicitResult.model_validate(given, from_attributes=True))
    except ValueError:
        return None


def encode_state(answers: Mapping[str, Answer]) -> str | None:
    if not answers:
        return None
    plain = {key: {"action": a.action, "content": a.data} for key, a in answers.items()}
    return base64.urlsafe_b64encode(json.dumps(plain, separators=(",", ":")).encode()).decode("ascii")


def decode_state(state: str | None) -> dict[str, Answer]:
    """The earlier rounds' answers; a state that is not one of ours counts as none."""
    if not state or len(state) > MAX_STATE_CHARS:
        return {}
    try:
        plain = json.loads(base64.urlsafe_b64decode(state.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        return {}
    if not isinstance(plain, dict):
        return {}
    found = {key: _parsed(value) for key, value in plain.items() if isinstance(key, str)}
    return {key: answer for key, answer in found.items() if answer is not None}


def asker_for(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> SessionAsker | RoundTripAsker:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return RoundTripAsker(ctx, params)
    return SessionAsker(ctx)


def input_required(question: Question, state: str | None) -> types.InputRequiredResult:
    """The round's result: the question, for the client to put to its user and send back, and
    the answers so far."""
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=question.message, requested_schema=dict(question.schema))
    )
    return types.InputRequiredResult(input_requests={question.key: request}, request_state=state)

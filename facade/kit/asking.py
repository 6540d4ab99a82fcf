"""Asking the user: a capability — or the server itself, before an approval-1 call — puts a
question to the person behind the client (MCP elicitation) and gets an answer.

One API for both protocol eras. On 2025-11-25 the server sends `elicitation/create` in the
middle of the call and waits for the answer. On 2026-07-28 a call cannot wait: its result is
an input request, the client asks its user and sends the same call again with the answer, and
the handler runs again from the start. So a handler asks before it changes anything, and asks
the same questions on the re-run; an answer counts only for the exact question it answers
(`Question.key` digests the message and the schema).

Like progress (facade/kit/progress.py), the asker belongs to the call: the transport puts it in
a context variable, which the worker thread of a sync handler inherits.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import anyio
import anyio.from_thread
from pydantic import BaseModel, ValidationError

from facade.errors import DomainError
from facade.kit.scoped import scoped

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class Question:
    """What the user is asked: a message and the JSON schema of the answer's fields (a flat
    object of strings, numbers, booleans and enums, as MCP elicitation allows)."""

    message: str
    schema: Mapping[str, Any]

    @property
    def key(self) -> str:
        """Names this exact question across the rounds of a 2026-07-28 call."""
        text = json.dumps([self.message, self.schema], sort_keys=True, separators=(",", ":"))
        return "ask-" + hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class Answer:
    """The user's answer: `accept` with the fields (`data`), or `decline`, or `cancel`."""

    action: Action
    data: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


class CannotAsk(DomainError):
    """The client has no way to ask its user (it declared no elicitation capability)."""


class InputNeeded(Exception):
    """2026-07-28: the call goes back to the client for an answer to `question`; the call layer
    turns this into the call's input request (it is no failure, and nothing has run past it)."""

    def __init__(self, question: Question, state: str | None = None) -> None:
        super().__init__(f"the call needs the user's answer to: {question.message}")
        self.question = question
        self.state = state
        """What the transport carries to the next round (the answers so far), opaque here."""


class Asker(Protocol):
    """How one call reaches the user behind its client (facade/mcp/elicitation.py)."""

    async def ask(self, question: Question) -> Answer:
        """The answer; raises `CannotAsk`, or `InputNeeded` when it must come in a later round."""
        ...


_current: ContextVar[Asker | None] = ContextVar("facade_asker", default=None)


def asking(asker: Asker | None) -> scoped[Asker | None]:
    """Route the questions asked inside to `asker`."""
    return scoped(_current, asker)


def schema_of(schema: type[BaseModel] | Mapping[str, Any]) -> dict[str, Any]:
    """An answer's JSON schema from a pydantic model (titles dropped: they say nothing the field
    names do not), or a schema given as a dict, unchanged."""
    if isinstance(schema, Mapping):
        return dict(schema)
    rendered = schema.model_json_schema()
    rendered.pop("title", None)
    for field in rendered.get("properties", {}).values():
        field.pop("title", None)
    return rendered


async def ask_async(message: str, schema: type[BaseModel] | Mapping[str, Any]) -> Answer:
    """Ask the user (from an async handler). A model as `schema` validates an accepted answer."""
    asker = _current.get()
    if asker is None:
        raise CannotAsk("this call has no client to ask its user through")
    answer = await asker.ask(Question(message, schema_of(schema)))
    if answer.accepted and isinstance(schema, type):
        try:
            answer = Answer("accept", schema.model_validate(answer.data or {}).model_dump(mode="json"))
        except ValidationError as exc:
            raise DomainError(f"the user's answer does not fit the question: {exc.errors(include_url=False)}") from None
    return answer


def ask(message: str, schema: type[BaseModel] | Mapping[str, Any]) -> Answer:
    """Ask the user (from a sync handler, in its worker thread) and wait for the answer."""
    try:
        return anyio.from_thread.run(ask_async, message, schema)
    except anyio.NoEventLoopError:
        raise RuntimeError("ctx.ask is for sync handlers (run in a worker thread); an async handler awaits ctx.ask_async") from None

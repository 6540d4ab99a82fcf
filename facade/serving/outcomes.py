"""What a call comes to: an `Outcome` with a status, and the messages that tell a model what
went wrong and what to change — written here once for every transport."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal

import structlog
from pydantic import ValidationError
from pydantic_core import to_jsonable_python
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm.exc import StaleDataError

from facade.errors import DomainError
from facade.kit.asking import Question
from facade.kit.capability import IDENTITY_FIELDS, Capability
from facade.kit.content import Block, Content
from facade.kit.db import BIGINT_MAX

log = structlog.get_logger("facade.serving.calls")  # the call path's logger, as before the split

# What became of a call: it ran (`ok`), or was held as a card (`held`), or why it did neither.
Status = Literal[
    "ok", "held", "refused", "identity", "unknown_tool", "invalid_arguments", "domain_error", "unavailable", "internal",
    "input_required",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a call produced: `data` on success (and `blocks`, when the capability returned
    content: facade/kit/content.py), else `error` (a message for the model); or, with
    `input_required`, the `question` the client must ask its user before the call can go on."""

    status: Status
    data: dict[str, Any] | None = None
    error: str | None = None
    agent: str | None = None
    conversation: str | None = None
    blocks: tuple[Block, ...] = ()
    question: Question | None = None
    state: str | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "held")


def unknown_tool_message(name: str) -> str:
    # A tool outside the caller's view gets exactly this text too: the facade does not reveal
    # what exists beyond what the agent may use.
    return f"unknown tool {name!r}; call tools/list for the tools available to you"


def failed(capability: Capability, exc: Exception, who: dict[str, Any]) -> Outcome:
    """What a call that raised tells its caller: what went wrong and what to do, never a trace."""
    if isinstance(exc, DomainError):
        return Outcome("domain_error", error=str(exc), **who)
    if isinstance(exc, (IntegrityError, StaleDataError)):
        # A concurrent call changed or took the same record first: a conflict, not an outage.
        log.warning("tool.conflict", tool=capability.name, exc_info=exc)
        return Outcome(
            "domain_error",
            error="conflict: another change to the same record landed first; nothing was changed — "
            "read the record again and retry",
            **who,
        )
    if isinstance(exc, DataError | OverflowError):
        # A value the database cannot take (a number past a column's width, text it cannot
        # hold; SQLite raises OverflowError before the database sees it): the same arguments
        # fail the same way every time, so this is theirs to change, not an outage to wait out.
        log.info("tool.data_refused", tool=capability.name, error=data_error_detail(exc))
        return Outcome(
            "invalid_arguments",
            error=f"invalid arguments for {capability.name}: the database refused a value ({data_error_detail(exc)}); "
            "nothing was changed — send a smaller number or plainer text in its place",
            **who,
        )
    if isinstance(exc, PoolTimeout):
        log.warning("tool.database_busy", tool=capability.name)
        return Outcome(
            "unavailable",
            error="unavailable: the server is busy and no database connection came free in time; nothing was "
            "changed, retry shortly",
            **who,
        )
    if isinstance(exc, DBAPIError):
        log.warning("tool.database_unavailable", tool=capability.name, exc_info=exc)
        return Outcome(
            "unavailable",
            error="unavailable: the database could not complete this call; nothing was changed, retry shortly",
            **who,
        )
    ref = uuid.uuid4().hex[:12]
    log.error("tool.crashed", tool=capability.name, ref=ref, exc_info=exc)
    return Outcome(
        "internal",
        error=f"internal error in {capability.name} (ref {ref}); the call did not complete and nothing "
        "was changed — report the ref to an operator",
        **who,
    )


def data_error_detail(exc: BaseException) -> str:
    """The database's own one-line reason: never the statement or its parameters, which may hold
    another record's data."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    primary = getattr(getattr(orig, "diag", None), "message_primary", None)
    return primary or (str(orig).splitlines() or [type(orig).__name__])[0]


def as_result(result: Any) -> tuple[dict[str, Any] | None, tuple[Block, ...]]:
    """A handler's result as (structured data, content blocks): a `Content` gives its blocks
    and its data (if any); anything else is data only."""
    if isinstance(result, Content):
        return (None if result.data is None else as_structured(result.data)), result.blocks
    return as_structured(result), ()


def as_structured(result: Any) -> dict[str, Any]:
    """A handler's result as a JSON object (`structuredContent` must be one)."""
    value = to_jsonable_python(result, by_alias=True)
    return value if isinstance(value, dict) else {"result": value}


def explain_validation(capability: Capability, exc: ValidationError) -> str:
    """Which arguments are wrong and how, then what the tool takes — written for a model."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        if error["type"] == "missing":
            problems.append(f"`{where}` is required")
        elif error["type"] == "extra_forbidden":
            problems.append(f"`{where}` is not a parameter of this tool")
        elif error["type"] == "int_parsing_size":  # pydantic's words speak of a string
            problems.append(f"`{where}`: too large; integers are at most {BIGINT_MAX}")
        else:
            problems.append(f"`{where}`: {error['msg']}")
    fields = capability.input_model.model_fields
    takes = ", ".join(
        f"{name}{'' if not f.is_required() else ' (required)'}"
        for name, f in fields.items()
        if name not in IDENTITY_FIELDS
    )
    return f"invalid arguments for {capability.name}: {'; '.join(problems)}. It takes: {takes or 'no parameters'}."

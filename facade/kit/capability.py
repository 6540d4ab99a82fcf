"""A capability: one typed operation of one domain, declared once as data.

Everything else — listing, filtering, enforcement, deny-lists, budgets — iterates over these.
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
import types
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_type_hints

from pydantic import BaseModel, ConfigDict, RootModel, ValidationError

from facade.errors import RegistryError
from facade.kit import asking, field_memory, progress

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

Tier = Literal["core", "full"]
Mode = Literal["core", "full"]
TIERS: tuple[Tier, ...] = ("core", "full")


class Approval(IntEnum):
    """Who must agree before a capability runs. An int, so a declaration may still say 0, 1 or
    2 and `_meta["facade/approval"]` carries the same number on the wire."""

    NONE = 0
    """Runs when called."""
    HOST = 1
    """The host asks its user first."""
    OPERATOR = 2
    """Held as a card until an operator approves it."""


NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*")
DOMAIN_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
WIRE_NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")

# The identity fields every parsed input model declares. The host-side hook fills them; the
# announced schema never shows them (a real deployment spent ~133k tokens describing them).
IDENTITY_FIELDS: tuple[str, ...] = ("auth_token", "conversation_id")


class Input(BaseModel):
    """Base for a capability's own arguments: unknown arguments are refused, not dropped, and
    surrounding whitespace is stripped, so that "  " is no name. Its validator is built on first
    use (`defer_build`): most of a catalogue's models are never validated against in a run."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        # pydantic calls this once the class and its fields are built: a catalogue holds one
        # model per capability, so what each field keeps counts ten thousand times over.
        super().__pydantic_init_subclass__(**kwargs)
        field_memory.share_empty_qualifiers(cls)


@dataclass(frozen=True, slots=True)
class Annotations:
    """MCP behaviour hints of a capability."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False


# One instance per combination of hints (there are eight), shared by the capabilities that
# declare it: one each was 56 bytes per capability (2026-12-04). Frozen, so sharing is safe.
_annotations = functools.cache(Annotations)


class SelfService(Protocol):
    """What the facade tells a calling agent about itself (the `skills` domain's view of the
    server): its apps and modes, and the catalogue behind them."""

    def apps(self) -> list[dict[str, Any]]: ...

    def catalogue(self) -> list[Capability]: ...

    def visible(self, name: str) -> bool: ...

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The agent's tools ranked for `query`: name, description, `callable_now`, `needs`."""
        ...

    def describe(self, name: str) -> dict[str, Any] | None: ...

    def grant_elevation(self, domain: str) -> float:
        """Switch `domain` to full mode for this conversation; only an approved call may.
        Returns when the elevation ends (epoch seconds)."""
        ...

    def card(self, card_id: int) -> dict[str, Any]:
        """One of this conversation's approval cards, or NotFound."""
        ...


class CallContext:
    """What a handler gets besides its arguments: who calls, in which conversation, a database
    session opened on first use (committed by the caller when the handler succeeds, then closed
    and possibly handed, reset, to the thread's next call: never keep it past the call,
    facade/serving/callsessions.py), and the facade's self-service view for this agent and
    conversation."""

    def __init__(
        self,
        agent: str,
        conversation: str | None,
        session_factory: Callable[[], Session] | None = None,
        facade: SelfService | None = None,
        approved_card: int | None = None,
    ) -> None:
        self.agent = agent
        self.conversation = conversation
        self._session_factory = session_factory
        self._db: Session | None = None
        self._facade = facade
        self.approved_card = approved_card
        """The card an operator approved for this run of a held call; None for a direct call."""

    @property
    def facade(self) -> SelfService:
        if self._facade is None:
            raise RuntimeError("this call has no facade self-service")
        return self._facade

    @property
    def db(self) -> Session:
        if self._db is None:
            if self._session_factory is None:
                raise RuntimeError("this call has no database")
            self._db = self._session_factory()
        return self._db

    @property
    def opened_db(self) -> Session | None:
        """The session if the handler used one, else None."""
        return self._db

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the client how far this call got (`done` of `total`; `done` only grows). Costs
        nothing when the client asked for no progress; never blocks the handler."""
        progress.report(done, total, message)

    def ask(self, message: str, schema: type[BaseModel] | Mapping[str, Any]) -> asking.Answer:
        """Ask the user behind the client (MCP elicitation) and wait for the answer; from a sync
        handler. `schema` is a pydantic model (the answer is validated) or a JSON schema dict.
        Ask before changing anything: on 2026-07-28 the handler runs again with the answer.
        Raises `CannotAsk` (a domain error) when the client cannot ask its user."""
        return asking.ask(message, schema)

    async def ask_async(self, message: str, schema: type[BaseModel] | Mapping[str, Any]) -> asking.Answer:
        """`ask`, from an async handler."""
        return await asking.ask_async(message, schema)


Handler = Callable[[CallContext, Any], Any] | Callable[[CallContext, Any], Awaitable[Any]]
Precheck = Callable[[CallContext, Any], None]


@dataclass(frozen=True, slots=True)
class Capability:
    """One operation, as data.

    Attributes:
        name: `<domain>.<action>`.
        description: what the tool does, in a line or two; rules shared by all tools live in
            TOOLS.md.j2, never here.
        input_model: the capability's own arguments.
        handler: `(ctx, args) -> result`, sync (run in a worker thread) or async.
        tier: `core` (CRUD and essential reads) or `full` (advanced and rare).
        approval: `Approval.NONE` (0), `HOST` (1, the host asks its user) or `OPERATOR` (2, an
            operator approves a card).
        annotations: MCP hints.
        example: arguments that succeed against the freshly seeded demo data whichever other
            examples ran before (in any order); the tests that execute every capability use them.
            Only its shape is checked at declaration; `example_problem` validates it (called by
            `facade check` and the test suite).
        precheck: for an approval-2 capability, refuses a call before a card is made for it
            (so an operator is never asked about a call that could not run).
        wire_name: the name MCP clients list and call it by, when that must differ from `name`:
            only for a name a third party fixes (the official conformance suite's fixtures).
    """

    name: str
    description: str
    input_model: type[Input]
    handler: Handler
    tier: Tier = "core"
    approval: Approval = Approval.NONE
    annotations: Annotations = field(default_factory=Annotations)
    example: dict[str, Any] | None = None
    precheck: Precheck | None = None
    is_async: bool = False
    # True when no tier was declared and the domain gave the one its action name implies
    # (`facade.kit.domain.tier_for`): the catalogue warns about those of third-party domains.
    tier_inferred: bool = False
    wire_name: str | None = None

    @property
    def parsed_model(self) -> type[BaseModel]:
        """`input_model` plus the identity fields; what a call is validated against."""
        return parsed_model_for(self.input_model)

    @property
    def tool_name(self) -> str:
        """What `tools/list` announces and `tools/call` takes: the name, unless a wire name is given."""
        return self.wire_name or self.name

    @property
    def domain(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def action(self) -> str:
        return self.name.split(".", 1)[1]


# Built on first use, one per input model: creating the 449 subclasses at discovery was 0.25 s of
# its 1.1 s CPU (measured 2026-12-02), for models most servers never validate against, and the
# capabilities that share an input model share its parsed model.
_parsed_models: dict[type[BaseModel], type[BaseModel]] = {}
_parsed_lock = threading.Lock()


def parsed_model_for(input_model: type[Input]) -> type[BaseModel]:
    """`input_model` plus `auth_token` and `conversation_id`, declared with no description."""
    parsed = _parsed_models.get(input_model)
    if parsed is None:
        with _parsed_lock:  # handlers' worker threads may ask for the same one at once
            parsed = _parsed_models.get(input_model)
            if parsed is None:
                parsed = _parsed_models[input_model] = _parsed_model(input_model)
    return parsed


def _parsed_model(input_model: type[Input]) -> type[BaseModel]:
    namespace: dict[str, Any] = {
        "__annotations__": {name: str for name in IDENTITY_FIELDS},
        "__module__": input_model.__module__,
        "__doc__": input_model.__doc__,
        "model_config": ConfigDict(**{**input_model.model_config, "extra": "forbid"}),
    }
    return type(input_model.__name__, (input_model,), namespace)


def declared_description(where: str, role: str, function: Any, description: str | None) -> str:
    """What a capability, resource or prompt says it does: `description=`, else its function's
    docstring, on one line; a declaration with neither, or with nothing to call, is refused."""
    if not callable(function):
        raise RegistryError(f"{where}: the {role} is not callable")
    text = " ".join((description if description is not None else inspect.getdoc(function) or "").split())
    if not text:
        raise RegistryError(f"{where}: missing description (give description= or a docstring)")
    return text


def make_capability(
    name: str,
    handler: Handler,
    *,
    description: str | None = None,
    input_model: type[Input] | None = None,
    tier: str = "core",
    approval: int = Approval.NONE,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool | None = None,
    example: dict[str, Any] | None = None,
    precheck: Precheck | None = None,
    reads: Iterable[str] = (),
    tier_inferred: bool = False,
    wire_name: str | None = None,
) -> Capability:
    """Build a capability, checking everything a declaration can get wrong.

    The description defaults to the handler's docstring and the input model to the annotation
    of its second parameter; a read-only capability is idempotent unless told otherwise.
    `reads` names input fields a shared handler relies on, so that a model lacking one is
    refused here rather than at the first call.
    """
    where = f"capability {name!r}"
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise RegistryError(
            f"{where}: a name is '<domain>.<action>' in lowercase letters, digits and '_', "
            "each part starting with a letter (e.g. 'projects.task_create')"
        )
    text = declared_description(where, "handler", handler, description)
    model = input_model or _input_model_of(where, handler)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise RegistryError(f"{where}: the input model must be a pydantic model, got {model!r}")
    if issubclass(model, RootModel):  # its parsed model could not add the identity fields: no call would validate
        raise RegistryError(f"{where}: the input model must name its arguments as fields; {model.__name__} is a RootModel")
    declared = [f for f in IDENTITY_FIELDS if f in model.model_fields]
    if declared:
        raise RegistryError(
            f"{where}: the input model declares {', '.join(declared)}; identity fields are added "
            "by the kit, remove them from the model"
        )
    missing = [f for f in reads if f not in model.model_fields]
    if missing:
        raise RegistryError(
            f"{where}: its input model {model.__name__} lacks {', '.join(missing)}, which its handler reads"
        )
    _check_signature(where, handler)
    # Only the shape here: validating against the model builds its validator, ~5 KiB and
    # 0.3 ms per capability (3.3 s of CPU at 10,449 capabilities, measured 2026-12-02) that a
    # server which never calls the tool pays for. `facade check` validates it (example_problem).
    if example is not None and not (isinstance(example, Mapping) and all(isinstance(k, str) for k in example)):
        raise RegistryError(f"{where}: its example must map argument names to values, got {example!r}")
    if tier not in TIERS:
        raise RegistryError(f"{where}: tier must be 'core' or 'full', got {tier!r}")
    if isinstance(approval, bool) or approval not in tuple(Approval):
        raise RegistryError(f"{where}: approval must be 0, 1 or 2 (an Approval), got {approval!r}")
    if wire_name is not None and not (isinstance(wire_name, str) and WIRE_NAME_PATTERN.fullmatch(wire_name)):
        raise RegistryError(f"{where}: a wire name is 1-64 letters, digits, '_', '-' or '.', got {wire_name!r}")
    if precheck is not None and approval != Approval.OPERATOR:
        raise RegistryError(f"{where}: a precheck runs before an operator's approval; give it approval=2")
    return Capability(
        name=name,
        description=text,
        input_model=model,
        handler=handler,
        tier=tier,  # type: ignore[arg-type]
        approval=Approval(approval),
        annotations=_annotations(bool(read_only), bool(destructive), bool(read_only if idempotent is None else idempotent)),
        example=example,
        precheck=precheck,
        is_async=inspect.iscoroutinefunction(handler),
        tier_inferred=tier_inferred,
        wire_name=wire_name,
    )


def example_problem(capability: Capability) -> str | None:
    """What is wrong with `capability`'s declared example against its input model, or None (no
    example, or one that validates)."""
    if capability.example is None:
        return None
    try:
        capability.input_model.model_validate(capability.example)
    except ValidationError as exc:
        wrong = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(the example)'}: {e['msg']}" for e in exc.errors())
        return f"{capability.name}'s example does not validate against {capability.input_model.__name__}: {wrong}"
    except Exception as exc:  # a model's own validator may raise anything
        return f"{capability.name}'s example does not validate against {capability.input_model.__name__}: {exc}"
    return None


def _check_signature(where: str, handler: Handler) -> None:
    if _required_parameters(handler) == (2, 0):
        return
    try:
        params = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError) as exc:
        raise RegistryError(f"{where}: cannot read the handler's signature ({exc})") from None
    if _signature_counts(params) != (2, 0):
        shown = ", ".join(p.name for p in params)
        raise RegistryError(f"{where}: the handler must take (ctx, args); it takes ({shown})")


def _signature_counts(params: Iterable[inspect.Parameter]) -> tuple[int, int]:
    """How many positional and keyword-only parameters a signature requires (no default)."""
    positional = required_kw = 0
    for p in params:
        if p.default is p.empty:
            positional += p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            required_kw += p.kind is p.KEYWORD_ONLY
    return positional, required_kw


def _required_parameters(handler: Any) -> tuple[int, int] | None:
    """`_signature_counts` of a plain function, read off its code object; None for any other
    callable (a method, a partial, a wrapper naming what it wraps, one with a `__signature__`),
    which `inspect.signature` reads: it was 55% of declaring a capability, ~27 us of CPU each
    (10,449 capabilities, 2026-12-07, issue 17)."""
    if type(handler) is not types.FunctionType or hasattr(handler, "__wrapped__") or hasattr(handler, "__signature__"):
        return None
    code = handler.__code__
    return (
        code.co_argcount - len(handler.__defaults__ or ()),
        code.co_kwonlyargcount - len(handler.__kwdefaults__ or {}),
    )


def _input_model_of(where: str, handler: Handler) -> type[Input]:
    try:
        hints = get_type_hints(handler)
    except Exception as exc:  # an unresolvable forward reference names itself in exc
        raise RegistryError(f"{where}: cannot resolve the handler's annotations ({exc})") from None
    params = list(inspect.signature(handler).parameters)
    if len(params) < 2 or params[1] not in hints:
        raise RegistryError(
            f"{where}: annotate the handler's second parameter with its input model, or pass input_model="
        )
    return hints[params[1]]

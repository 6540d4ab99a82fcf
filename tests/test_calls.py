"""Running a call in-process: a held call whose card cannot be kept, or whose precheck breaks,
still ends as an outcome that says what happened — nothing raises into the transport."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from facade.catalogue.agents import Agent
from facade.serving.calls import CallRequest, Calls
from facade.kit.capability import CallContext, Input
from facade.access.cards import MemoryCards
from facade.kit.domain import Domain
from facade.access.elevation import MemoryElevations
from facade.errors import InvalidRequest
from facade.access.identity import TokenBook
from facade.catalogue.registry import Registry
from facade.catalogue.views import Views

pytestmark = pytest.mark.anyio


class Note(Input):
    text: str


def precheck(ctx: CallContext, args: Note) -> None:
    if args.text == "refuse":
        raise InvalidRequest("this note is refused")
    if args.text == "crash":
        raise KeyError("a bug in the precheck")


def send(ctx: CallContext, args: Note) -> dict[str, Any]:
    """Send a note, once an operator has approved it."""
    return {"sent": args.text}


class AuditAway:
    """An audit log whose database has gone away."""

    def record(self, **_: Any) -> None:
        raise OperationalError("INSERT INTO facade_audit", {}, ConnectionRefusedError("secret-host:5432 refused"))

    def new_card_id(self) -> int:
        raise OperationalError("INSERT INTO facade_card_ids", {}, ConnectionRefusedError("secret-host:5432 refused"))


def calls_with(audit: Any) -> tuple[Calls, MemoryCards]:
    probe = Domain("probe", description="A probe.")
    probe.add("note_send", send, approval=2, precheck=precheck)
    registry = Registry([probe])
    agent = Agent("probe", "", "", None, None, None, "facade-dev-probe", True, {"probe": "full"}, Path("."))
    agents = {"probe": agent}
    cards = MemoryCards()
    views = Views(registry, agents, MemoryElevations())
    return Calls(views, TokenBook(agents, on_loopback=True), None, cards, audit), cards


def held(text: str) -> CallRequest:
    return CallRequest("probe.note_send", {"text": text}, bearer="facade-dev-probe", conversation_header="c")


class TestHold:
    """What an approval-2 call returns when holding it fails part way."""

    async def test_database_away_is_unavailable_not_a_crash(self) -> None:
        calls, _ = calls_with(AuditAway())
        outcome = await calls.run(held("hello"))
        assert outcome.status == "unavailable" and not outcome.ok
        assert outcome.error is not None and outcome.error.startswith("unavailable: the database")
        assert "secret-host" not in outcome.error and "INSERT" not in outcome.error

    async def test_a_refusing_precheck_makes_no_card(self) -> None:
        calls, cards = calls_with(AuditAway())
        outcome = await calls.run(held("refuse"))
        assert (outcome.status, outcome.error) == ("domain_error", "invalid request: this note is refused")
        assert cards.all() == []

    async def test_a_crashing_precheck_is_an_internal_error_with_a_ref(self) -> None:
        calls, cards = calls_with(AuditAway())
        outcome = await calls.run(held("crash"))
        assert outcome.status == "internal" and outcome.error is not None
        assert outcome.error.startswith("internal error in probe.note_send (ref ") and "bug" not in outcome.error
        assert cards.all() == []


class Query(Input):
    text: str = ""


def raising(exc: BaseException):  # type: ignore[no-untyped-def]
    def handler(ctx: CallContext, args: Query) -> dict[str, Any]:
        """Look something up in the database."""
        raise exc

    return handler


async def outcome_of(exc: BaseException, arguments: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    probe = Domain("probe", description="A probe.")
    probe.add("thing_find", raising(exc))
    agent = Agent("probe", "", "", None, None, None, "facade-dev-probe", True, {"probe": "full"}, Path("."))
    views = Views(Registry([probe]), {"probe": agent}, MemoryElevations())
    calls = Calls(views, TokenBook({"probe": agent}, on_loopback=True), None, MemoryCards(), AuditAway())
    return await calls.run(CallRequest("probe.thing_find", arguments or {}, bearer="facade-dev-probe"))


class TestDatabaseErrors:
    """What the database's refusals tell a model: a value it cannot take is the arguments' to
    change (the same call fails the same way again); a pool with no free connection is busy."""

    async def test_a_data_error_is_an_input_error_naming_the_reason_not_the_statement(self) -> None:
        from sqlalchemy.exc import DataError

        orig = Exception("integer out of range\nLINE 1: SELECT * FROM secret_table WHERE id = 2147483648")
        outcome = await outcome_of(DataError("SELECT * FROM secret_table WHERE id = %(id)s", {"id": 2147483648}, orig))
        assert outcome.status == "invalid_arguments" and outcome.error is not None
        assert "integer out of range" in outcome.error and "send a smaller number" in outcome.error
        assert "secret_table" not in outcome.error and "2147483648" not in outcome.error

    async def test_sqlite_overflow_is_an_input_error(self) -> None:
        outcome = await outcome_of(OverflowError("Python int too large to convert to SQLite INTEGER"))
        assert outcome.status == "invalid_arguments" and outcome.error is not None
        assert "too large" in outcome.error and "retry" not in outcome.error

    async def test_an_exhausted_pool_is_busy_not_a_crash(self) -> None:
        from sqlalchemy.exc import TimeoutError as PoolTimeout

        outcome = await outcome_of(PoolTimeout("QueuePool limit of size 5 overflow 10 reached"))
        assert outcome.status == "unavailable" and outcome.error is not None
        assert "busy" in outcome.error and "retry shortly" in outcome.error and "QueuePool" not in outcome.error


class TestStorable:
    """Text with a NUL byte and integers past 64 bits are refused before any handler runs, with
    the field named, in any capability."""

    async def test_nul_anywhere_names_the_field(self) -> None:
        outcome = await outcome_of(AssertionError("the handler must not run"), {"text": "a\x00b"})
        assert outcome.status == "invalid_arguments" and outcome.error is not None
        assert "`text`" in outcome.error and "NUL" in outcome.error and "remove it" in outcome.error

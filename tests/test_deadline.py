"""One call may not run without end (issue 13 item 1): the server gives each call a deadline,
and the loops of long handlers stop at their next step past it, saying what to change."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from facade.access.cards import MemoryCards
from facade.access.elevation import MemoryElevations
from facade.access.identity import TokenBook
from facade.catalogue.agents import Agent
from facade.catalogue.registry import Registry
from facade.catalogue.views import Views
from facade.errors import TimedOut
from facade.kit import CallContext, Input, deadline, each
from facade.kit.domain import Domain
from facade.serving.calls import CallRequest, Calls

pytestmark = pytest.mark.anyio

# A bound on every wait here: the deadline passes long before it on any machine.
PATIENCE_SECONDS = 60


class Clock:
    """The deadline module's clock, moved by hand: a deadline of 1 ms is not yet past when the
    test says so, however long a busy machine took between two lines."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    hand = Clock()
    monkeypatch.setattr(deadline, "time", hand)  # the module's own name for its clock, nobody else's
    return hand


class TestCheck:
    def test_outside_a_call_it_is_free(self) -> None:
        deadline.check()

    def test_past_the_deadline_it_says_what_to_change(self, clock: Clock) -> None:
        with deadline.limited(0.001):
            deadline.check()  # not yet: a fresh call runs
            clock.now += 0.002
            with pytest.raises(TimedOut, match=r"timed out: .*limit of 0.001 s.*narrow it"):
                deadline.check()
        deadline.check()  # the block's end lifts it

    def test_each_reports_the_rest_as_not_attempted(self, clock: Clock) -> None:
        ran: list[int] = []

        def act(n: int) -> dict[str, Any]:
            ran.append(n)
            clock.now += 0.002  # the first item uses up the call's time
            return {}

        with deadline.limited(0.001):
            outcome = each([1, 2, 3], "n", act)
        assert ran == [1]
        assert [r["ok"] for r in outcome["results"]] == [True, False, False]
        assert outcome["results"][1]["error"].startswith("not attempted: timed out:")
        assert (outcome["succeeded"], outcome["failed"]) == (1, 2)


class Loop(Input):
    pass


def spin(ctx: CallContext, args: Loop) -> dict[str, Any]:
    """Loop until the call's deadline stops it (bounded, in case it never does)."""
    end = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < end:
        deadline.check()
    return {"finished": "without being stopped"}


async def spin_async(ctx: CallContext, args: Loop) -> dict[str, Any]:
    """The same, as an async handler."""
    end = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < end:
        deadline.check()
        await asyncio.sleep(0.001)
    return {"finished": "without being stopped"}


def calls(call_deadline: float) -> Calls:
    probe = Domain("probe", description="A probe.")
    probe.add("spin_run", spin)
    probe.add("spin_wait", spin_async)
    agent = Agent("probe", "", "", None, None, None, "facade-dev-probe", True, {"probe": "full"}, Path("."))
    views = Views(Registry([probe]), {"probe": agent}, MemoryElevations())
    return Calls(
        views, TokenBook({"probe": agent}, on_loopback=True), None, MemoryCards(), None, call_deadline=call_deadline  # type: ignore[arg-type]
    )


class TestCalls:
    """The deadline the server sets reaches the handler, in its worker thread or on the loop."""

    @pytest.mark.parametrize("tool", ["probe.spin_run", "probe.spin_wait"])
    async def test_a_call_past_its_deadline_is_stopped_with_a_clear_error(self, tool: str) -> None:
        outcome = await calls(0.05).run(CallRequest(tool, {}, bearer="facade-dev-probe"))
        assert outcome.status == "domain_error", outcome
        assert outcome.error is not None and outcome.error.startswith("timed out: the call ran past")

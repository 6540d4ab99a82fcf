"""Every capability in the registry executes through a real MCP client over HTTP.

The walk runs each capability's declared example on a freshly seeded database, alternating the
two protocol eras; it grows with the catalogue by construction. Order carries no meaning: the
walk passes in registration order and shuffled (the seed is in the test's id and in any failure).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest

from facade.catalogue.discovery import discover
from facade.kit import Capability
from tests.fakes.docker_engine import running_engine
from tests.fakes.smtp import running_smtp
from tests.support import DEV, ServerProcess, mcp_client, postgres_database, text_of

pytestmark = pytest.mark.anyio
REGISTRY = discover()
SHUFFLE = 20261201  # a fixed seed, so that a failing order can be replayed
# walker has `skills` in core mode: its full tools are hidden until the walk asks for them.
HIDDEN = {c.name for c in REGISTRY if c.domain == "skills" and c.tier == "full"}
# The one example that must run where `skills` is still in core mode: asking for what a
# conversation already has is refused before any card is made.
ASKS = "skills.elevate"
# The walk's conversations: WALK, elevated before the walk (every tool in view; its card is
# card 1, the one skills.card_status's example reads); ASKING, where skills.elevate asks.
WALK, ASKING = {"X-Conversation-Id": "walk"}, {"X-Conversation-Id": "walk-asks"}


@contextlib.contextmanager
def walk_server(tmp_path: Path, backend: str) -> Iterator[ServerProcess]:
    """A freshly seeded server whose backends all answer: a fake Docker engine and a real SMTP
    server on loopback, so that no capability is excused as "unavailable"."""
    with contextlib.ExitStack() as stack:
        _, docker_host = stack.enter_context(running_engine())
        _, smtp_port = stack.enter_context(running_smtp())
        env = {
            "FACADE_DOCKER_HOST": docker_host,
            "FACADE_MAIL_SMTP_HOST": "127.0.0.1",
            "FACADE_MAIL_SMTP_PORT": str(smtp_port),
        }
        if backend == "postgresql":
            env["FACADE_DATABASE_URL"] = stack.enter_context(postgres_database())
        proc = ServerProcess(tmp_path, env=env).start()
        stack.callback(proc.stop)
        yield proc


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    with walk_server(tmp_path, request.param) as proc:
        yield proc


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[ServerProcess]:
    with walk_server(tmp_path, "sqlite") as proc:
        yield proc


class TestWalk:
    """The registry walk: each capability succeeds with its example, in any order."""

    def test_every_capability_declares_an_example(self) -> None:
        assert [c.name for c in REGISTRY if c.example is None] == []

    async def test_every_capability_executes(self, fresh_server: ServerProcess) -> None:
        failures = await walk(fresh_server, list(REGISTRY))
        assert failures == [], "\n".join(failures)
        assert len(REGISTRY) >= 40

    async def test_every_capability_executes_in_another_order(self, sqlite_server: ServerProcess) -> None:
        order = list(REGISTRY)
        random.Random(SHUFFLE).shuffle(order)
        assert order != list(REGISTRY)
        failures = await walk(sqlite_server, order)
        assert failures == [], f"in the order of shuffle seed {SHUFFLE}:\n" + "\n".join(failures)


async def user_accepts(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user behind the walk's client: says yes to every approval-1 question."""
    return types.ElicitResult(action="accept", content={})


async def walk(server: ServerProcess, order: list[Capability]) -> list[str]:
    """Call every capability in `order` with its example; returns what failed."""
    failures: list[str] = []
    async with (
        mcp_client(server.url, DEV["walker"], mode="legacy", headers=WALK, elicitation_callback=user_accepts) as legacy,
        mcp_client(server.url, DEV["walker"], mode="auto", headers=WALK, elicitation_callback=user_accepts) as modern,
        mcp_client(server.url, DEV["walker"], mode="auto", headers=ASKING) as asking,
    ):
        everything = {c.name for c in REGISTRY}
        assert {t.name for t in (await modern.list_tools()).tools} == everything - HIDDEN
        # The walk's own elevation, before any example runs: then no example depends on another
        # having asked for it, and card 1 is this conversation's.
        held = await modern.call_tool(ASKS, {"domain": "skills", "reason": "The walk reaches every tool."})
        assert not held.is_error and held.structured_content["card_id"] == 1, text_of(held)
        assert approve(server, ASKS, held.structured_content) == []
        assert {t.name for t in (await modern.list_tools()).tools} == everything
        assert {t.name for t in (await asking.list_tools()).tools} == everything - HIDDEN
        for index, cap in enumerate(order):
            client = asking if cap.name == ASKS else (legacy, modern)[index % 2]
            result = await client.call_tool(cap.name, cap.example or {})
            data = result.structured_content
            if result.is_error or not isinstance(data, dict):
                failures.append(f"{cap.name}: {text_of(result)[:300]}")
            elif cap.approval == 2:
                failures += approve(server, cap.name, data)
        # Tidy-up, not an example: in some orders the heartbeat's start comes after its stop.
        tidy = await modern.call_tool("services.service_stop", {"service_id": 2})
        assert not tidy.is_error, text_of(tidy)
    return failures


def approve(server: ServerProcess, tool: str, held: dict[str, Any]) -> list[str]:
    """An approval-2 call comes back held as a card; the operator approves it and it runs."""
    if "card_id" not in held:
        return [f"{tool}: ran without being held for approval: {held}"]
    response = httpx2.post(
        f"{server.base}/api/cards/{held['card_id']}/approve",
        headers={"Authorization": f"Bearer {DEV['operator']}"},
        json={"reason": "walk", "by": "tests"},
        timeout=60,
    )
    card = response.json().get("card", {})
    if response.status_code != 200 or not card.get("outcome", {}).get("ok"):
        return [f"{tool}: approval did not run it: {response.status_code} {response.text[:300]}"]
    return []

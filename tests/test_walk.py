"""Every capability in the registry executes through a real MCP client over HTTP.

The walk follows registration order on a freshly seeded database, alternating the two protocol
eras, with each capability's declared example; it grows with the catalogue by construction.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from facade.catalogue.discovery import discover
from tests.fakes.docker_engine import running_engine
from tests.fakes.smtp import running_smtp
from tests.support import DEV, ServerProcess, mcp_client, postgres_database, text_of

pytestmark = pytest.mark.anyio
REGISTRY = discover()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
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
        if request.param == "postgresql":
            env["FACADE_DATABASE_URL"] = stack.enter_context(postgres_database())
        proc = ServerProcess(tmp_path, env=env).start()
        stack.callback(proc.stop)
        yield proc


class TestWalk:
    """The registry walk: each capability succeeds with its example."""

    def test_every_capability_declares_an_example(self) -> None:
        assert [c.name for c in REGISTRY if c.example is None] == []

    async def test_every_capability_executes(self, fresh_server: ServerProcess) -> None:
        failures: list[str] = []
        conversation = {"X-Conversation-Id": "walk"}
        async with mcp_client(fresh_server.url, DEV["walker"], mode="legacy", headers=conversation) as legacy:
            async with mcp_client(fresh_server.url, DEV["walker"], mode="auto", headers=conversation) as modern:
                listed = {t.name for t in (await modern.list_tools()).tools}
                # walker has `skills` in core mode: its full tools come after the walk asks for them.
                hidden = {c.name for c in REGISTRY if c.domain == "skills" and c.tier == "full"}
                assert listed == {c.name for c in REGISTRY} - hidden
                for index, cap in enumerate(REGISTRY):
                    client = (legacy, modern)[index % 2]
                    result = await client.call_tool(cap.name, cap.example or {})
                    data = result.structured_content
                    if result.is_error or not isinstance(data, dict):
                        failures.append(f"{cap.name}: {text_of(result)[:300]}")
                    elif cap.approval == 2:
                        failures += approve(fresh_server, cap.name, data)
        assert failures == [], "\n".join(failures)
        assert len(REGISTRY) >= 40


def approve(server: ServerProcess, tool: str, held: dict) -> list[str]:  # type: ignore[type-arg]
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

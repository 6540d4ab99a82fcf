"""Every capability in the registry executes through a real MCP client over HTTP.

The walk follows registration order on a freshly seeded database, alternating the two protocol
eras, with each capability's declared example; it grows with the catalogue by construction.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from facade.discovery import discover
from tests.support import DEV, ServerProcess, mcp_client, postgres_database, text_of

pytestmark = pytest.mark.anyio
REGISTRY = discover()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    if request.param == "sqlite":
        proc = ServerProcess(tmp_path).start()
        yield proc
        proc.stop()
        return
    with postgres_database() as url:
        proc = ServerProcess(tmp_path, env={"FACADE_DATABASE_URL": url}).start()
        yield proc
        proc.stop()


class TestWalk:
    """The registry walk: each capability succeeds with its example."""

    def test_every_capability_declares_an_example(self) -> None:
        assert [c.name for c in REGISTRY if c.example is None] == []

    async def test_every_capability_executes(self, fresh_server: ServerProcess) -> None:
        failures: list[str] = []
        async with mcp_client(fresh_server.url, DEV["walker"], mode="legacy") as legacy:
            async with mcp_client(fresh_server.url, DEV["walker"], mode="auto") as modern:
                listed = {t.name for t in (await modern.list_tools()).tools}
                assert listed == {c.name for c in REGISTRY}
                for index, cap in enumerate(REGISTRY):
                    client = (legacy, modern)[index % 2]
                    result = await client.call_tool(cap.name, cap.example or {})
                    if result.is_error or not isinstance(result.structured_content, dict):
                        failures.append(f"{cap.name}: {text_of(result)[:300]}")
        assert failures == [], "\n".join(failures)
        assert len(REGISTRY) >= 40

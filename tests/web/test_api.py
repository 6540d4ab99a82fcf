"""The operator API over real HTTP: who may read what, and the same views as MCP."""

from __future__ import annotations

import httpx2
import pytest

from facade.catalogue.discovery import discover
from tests.support import DEV, ServerProcess, mcp_client

REGISTRY = discover()


def get(server: ServerProcess, path: str, token: str | None = DEV["operator"]) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.get(f"{server.base}{path}", headers=headers, timeout=30)


class TestAuth:
    """Operators read everything; an agent reads only its own /api/agents/{self}/ routes."""

    @pytest.mark.parametrize("path", ["/api/agents", "/api/catalogue", "/api/agents/atlas/tools"])
    def test_missing_and_unknown_tokens(self, server: ServerProcess, path: str) -> None:
        for token in (None, "nope"):
            response = get(server, path, token)
            assert response.status_code == 401 and "FACADE_OPERATOR_TOKEN" in response.json()["error"]

    def test_agent_token_reads_only_itself(self, server: ServerProcess) -> None:
        assert get(server, "/api/agents/atlas/tools", DEV["atlas"]).status_code == 200
        assert get(server, "/api/agents/atlas/tools-md", DEV["atlas"]).status_code == 200
        for path in ("/api/agents/francis/tools", "/api/agents", "/api/catalogue"):
            assert get(server, path, DEV["atlas"]).status_code == 403, path
        assert get(server, "/api/agents", DEV["runtime"]).status_code == 403

    def test_unknown_agent_and_format(self, server: ServerProcess) -> None:
        missing = get(server, "/api/agents/nobody/tools")
        bad = get(server, "/api/agents/atlas/denylist?format=yaml")
        assert missing.status_code == 404 and "unknown agent 'nobody'" in missing.json()["error"]
        assert bad.status_code == 400 and "unknown format 'yaml'" in bad.json()["error"]


class TestSameViews:
    """The API reports exactly what MCP serves."""

    @pytest.mark.anyio
    async def test_tools_and_denylist_match_mcp(self, server: ServerProcess) -> None:
        async with mcp_client(server.url, DEV["francis"]) as client:
            listed = [t.name for t in (await client.list_tools()).tools]
        api = get(server, "/api/agents/francis/tools").json()
        assert [t["name"] for t in api["tools"]] == listed
        deny = get(server, "/api/agents/francis/denylist").json()["tools"]["deny"]
        assert len(deny) + len(listed) == len(REGISTRY)
        lines = get(server, "/api/agents/francis/denylist?format=lines").text.split()
        assert lines == deny

    def test_openapi_describes_every_route(self, server: ServerProcess) -> None:
        spec = httpx2.get(f"{server.base}/openapi.json").json()
        assert {"/api/agents", "/api/catalogue", "/api/agents/{agent}/denylist"} <= set(spec["paths"])

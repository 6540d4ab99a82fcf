"""The MCP server over real streamable HTTP, driven by the official SDK client in both eras."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from facade.serving.outcomes import unknown_tool_message
from facade.catalogue.discovery import discover
from tests.support import DEV, ServerProcess, mcp_client, modern_body, modern_headers, raw_call, text_of
from tests.test_sessions import refused_on_opening

pytestmark = pytest.mark.anyio
REGISTRY = discover()
FILES_FULL = next(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")


async def names(server: ServerProcess, token: str, era: str) -> list[str]:
    async with mcp_client(server.url, token, mode=era) as client:
        return [t.name for t in (await client.list_tools()).tools]


class TestViews:
    """tools/list returns the caller's view, decided by the agent's modes."""

    async def test_two_agents_see_different_lists(self, server: ServerProcess, era: str) -> None:
        atlas = await names(server, DEV["atlas"], era)
        francis = await names(server, DEV["francis"], era)
        assert atlas and francis and set(atlas) != set(francis)
        # francis has files in core mode: no full-tier files tool; atlas has files by default (full).
        assert FILES_FULL in atlas and FILES_FULL not in francis
        expected = {c.name for c in REGISTRY if c.domain == "files" and c.tier == "core"}
        assert {n for n in francis if n.startswith("files.")} == expected

    async def test_runtime_token_lists_the_whole_catalogue(self, server: ServerProcess, era: str) -> None:
        assert sorted(await names(server, DEV["runtime"], era)) == sorted(c.name for c in REGISTRY)

    async def test_announced_schemas_carry_no_identity_or_prose(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV["runtime"], mode=era) as client:
            tools = (await client.list_tools()).tools
        assert len(tools) == len(REGISTRY)
        for tool in tools:
            for node in schema_nodes(tool.input_schema):
                assert not {"$schema", "title"} & set(node), (tool.name, node)
                assert not {"auth_token", "conversation_id"} & set(node.get("properties", {})), tool.name
                assert "auth_token" not in node.get("required", [])

    async def test_listing_without_a_token_is_refused_clearly(self, server: ServerProcess, era: str) -> None:
        # Refused with 401 before anything is served, in either era (tests/mcp/test_challenge.py).
        await refused_on_opening(server.url, None, "Authorization: Bearer", mode=era)

    async def test_unknown_token_is_refused(self, server: ServerProcess, era: str) -> None:
        await refused_on_opening(server.url, "not-a-token", "not accepted", mode=era)


def schema_nodes(schema: Any) -> list[dict[str, Any]]:
    """Every schema object inside `schema` (property maps are maps of schemas, not schemas)."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        found.append(schema)
        for key, value in schema.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                for sub in value.values():
                    found += schema_nodes(sub)
            elif key in ("items", "additionalProperties", "not"):
                found += schema_nodes(value)
            elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
                for sub in value:
                    found += schema_nodes(sub)
    return found


class TestCalls:
    """tools/call validates, resolves identity, enforces the view and runs the handler."""

    async def test_a_call_returns_text_and_structured_content(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV["atlas"], mode=era) as client:
            result = await client.call_tool("files.list", {"path": ""})
        assert not result.is_error, text_of(result)
        assert isinstance(result.structured_content, dict)
        assert json.loads(text_of(result)) == result.structured_content

    async def test_outside_the_view_is_refused_exactly_as_unknown(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV["francis"], mode=era) as client:
            hidden = await client.call_tool(FILES_FULL, {})
            missing = await client.call_tool("files.no_such_tool", {})
        assert hidden.is_error and missing.is_error
        assert text_of(hidden) == unknown_tool_message(FILES_FULL)
        assert text_of(missing) == unknown_tool_message("files.no_such_tool")

    async def test_missing_extra_and_mistyped_arguments(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV["atlas"], mode=era) as client:
            missing = await client.call_tool("files.read", {})
            extra = await client.call_tool("files.read", {"path": "notes/todo.txt", "colour": "red"})
            mistyped = await client.call_tool("files.list", {"path": ["not", "a", "string"]})
        assert missing.is_error and "`path` is required" in text_of(missing)
        assert "It takes: path (required)" in text_of(missing)
        assert extra.is_error and "`colour` is not a parameter" in text_of(extra)
        assert mistyped.is_error and "`path`" in text_of(mistyped)

    async def test_a_model_supplied_token_of_another_agent_is_ignored(self, server: ServerProcess, era: str) -> None:
        # atlas's bearer wins over francis's token in the arguments: the full-tier tool that
        # only atlas may use runs, so the call acted as atlas.
        async with mcp_client(server.url, DEV["atlas"], mode=era) as client:
            tool = next(c for c in REGISTRY if c.name == FILES_FULL)
            result = await client.call_tool(FILES_FULL, {**(tool.example or {}), "auth_token": DEV["francis"]})
        assert text_of(result) != unknown_tool_message(FILES_FULL)

    def test_injected_token_without_bearer(self, server: ServerProcess) -> None:
        as_atlas = raw_call(server.url, "files.list", {"path": "", "auth_token": DEV["atlas"]})
        as_francis = raw_call(server.url, FILES_FULL, {"auth_token": DEV["francis"]})
        assert not as_atlas.get("isError"), as_atlas
        assert as_francis["content"][0]["text"] == unknown_tool_message(FILES_FULL)
        nobody = httpx2.post(
            server.url,
            content=modern_body("tools/call", {"name": "files.list", "arguments": {"path": ""}}),
            headers=modern_headers("tools/call", "files.list"),
            timeout=30,
        )
        # No token anywhere: challenged with 401 before anything runs (tests/mcp/test_challenge.py).
        assert nobody.status_code == 401 and "none was sent" in nobody.json()["error"]["message"]

    async def test_runtime_connection_enforces_the_injected_agent(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV["runtime"], mode=era) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            as_francis = await client.call_tool(FILES_FULL, {"auth_token": DEV["francis"]})
            as_atlas = await client.call_tool("files.list", {"path": "", "auth_token": DEV["atlas"]})
            anonymous = await client.call_tool("files.list", {"path": ""})
        assert FILES_FULL in listed
        assert text_of(as_francis) == unknown_tool_message(FILES_FULL)
        assert not as_atlas.is_error
        assert anonymous.is_error and "runtime token" in text_of(anonymous)


class TestBadInput:
    """Malformed and oversized requests get clear errors, and the server goes on serving."""

    def test_malformed_json_rpc(self, server: ServerProcess) -> None:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        # Without a token, a request that would open a handshake-era session is refused unread.
        assert httpx2.post(server.url, content=b"{not json", headers=headers).status_code == 401
        headers["Authorization"] = f"Bearer {DEV['atlas']}"
        for era_headers in ({}, {"MCP-Protocol-Version": "2026-07-28"}):
            response = httpx2.post(server.url, content=b"{not json", headers={**headers, **era_headers})
            assert response.status_code in (200, 400)
            assert "Parse error" in response.text
        assert httpx2.get(f"{server.base}/healthz").status_code == 200

    def test_body_over_the_limit(self, server: ServerProcess) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "x" * (1 << 20)})
        response = httpx2.post(
            server.url,
            content=body,
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        assert response.status_code == 413
        message = response.json()["error"]["message"]
        assert "1048576" in message and "FACADE_MAX_BODY_BYTES" in message
        assert httpx2.get(f"{server.base}/healthz").status_code == 200

    async def test_server_survives_a_burst_of_bad_calls(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV["atlas"], mode=era) as client:
            for args in ({"path": None}, {"path": "../../etc/passwd"}, {"path": "\x00"}, {"path": "a" * 10000}):
                result = await client.call_tool("files.read", args)
                assert result.is_error
                assert "Traceback" not in text_of(result)
            assert not (await client.call_tool("files.list", {"path": ""})).is_error


class TestLogging:
    """Every call is logged as JSON with agent, conversation, tool, outcome and duration — and
    no token ever reaches a log line (the calls above sent dev tokens every way they can)."""

    async def test_calls_are_logged_without_tokens(self, server: ServerProcess) -> None:
        async with mcp_client(server.url, DEV["atlas"], headers={"X-Conversation-Id": "log-check"}) as client:
            await client.call_tool("files.list", {"path": "", "auth_token": DEV["francis"]})
        log = server.log()
        events = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
        calls = [e for e in events if e.get("event") == "tool.call"]
        mine = [e for e in calls if e.get("conversation") == "log-check"]
        assert mine and mine[-1]["agent"] == "atlas" and mine[-1]["tool"] == "files.list"
        assert mine[-1]["outcome"] == "ok" and isinstance(mine[-1]["duration_ms"], float)
        assert {"ok", "unknown_tool", "invalid_arguments", "identity"} <= {e["outcome"] for e in calls}
        assert "facade-dev-" not in log

"""stdio: `facade stdio --agent NAME` for desktop clients, and `facade bridge` in front of HTTP."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from facade.serving.outcomes import unknown_tool_message
from facade.catalogue.discovery import discover
from tests.support import DEV, ServerProcess, base_env, emptied_redis, mcp_client, text_of
from tests.test_elevation import api, counting, names

pytestmark = pytest.mark.anyio
REGISTRY = discover()
FILES_FULL = next(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")
FILES_FULL_ALL = sorted(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")


def facade_command(workdir: Path, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "facade.cli", *args],
        env={**os.environ, **base_env(workdir), **(env or {})},
        cwd=workdir,
    )


class TestStdio:
    """One agent per process: its view, its calls, nothing more."""

    async def test_agent_view_and_calls(self, tmp_path: Path) -> None:
        async with Client(facade_command(tmp_path, "stdio", "--agent", "francis"), mode="legacy") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            ok = await client.call_tool("files.list", {"path": ""})
            hidden = await client.call_tool(FILES_FULL, {})
        assert "files.list" in listed and FILES_FULL not in listed
        assert not ok.is_error, text_of(ok)
        assert text_of(hidden) == unknown_tool_message(FILES_FULL)

    async def test_unknown_agent_is_a_clear_error(self, tmp_path: Path) -> None:
        import subprocess

        params = facade_command(tmp_path, "stdio", "--agent", "nobody")
        done = subprocess.run([params.command, *params.args], env=params.env, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 2
        assert "unknown agent 'nobody'" in done.stderr and "Traceback" not in done.stderr

    async def test_without_redis_elevation_is_refused_and_names_the_setting(self, tmp_path: Path) -> None:
        """Cards kept in this process's memory could never be decided by an operator."""
        async with Client(facade_command(tmp_path, "stdio", "--agent", "francis"), mode="legacy") as client:
            refused = await client.call_tool("skills.elevate", {"domain": "files", "reason": "no operator can see this"})
            still = await client.call_tool("files.list", {"path": ""})
        assert refused.is_error and "FACADE_REDIS_URL" in text_of(refused)
        assert text_of(refused).startswith("skills.elevate needs an operator's approval") and "nothing was held" in text_of(refused)
        assert not still.is_error, text_of(still)


class TestStdioWithRedis:
    """With FACADE_REDIS_URL, a card made through `facade stdio` is decided on `facade serve`,
    and the stdio client hears that its list changed."""

    async def test_approval_on_serve_reaches_the_stdio_client(self, tmp_path: Path, era: str) -> None:
        redis_url = emptied_redis(10)  # this file's own database (tests/support.py)
        env = {"FACADE_REDIS_URL": redis_url, "FACADE_DATA_DIR": str(tmp_path / "shared")}
        (tmp_path / "serve").mkdir()
        (tmp_path / "stdio").mkdir()
        serve = ServerProcess(tmp_path / "serve", env=env).start()
        try:
            params = facade_command(tmp_path / "stdio", "stdio", "--agent", "francis", env=env)
            async with counting(lambda handler: Client(params, mode=era, message_handler=handler), era) as (client, changes):
                before = await names(client)
                held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "asked over stdio"})
                assert not held.is_error, text_of(held)
                card_id = held.structured_content["card_id"]
                pending = api(serve, "GET", "/api/cards").json()["cards"]
                assert [c["card_id"] for c in pending if c["agent"] == "francis"] == [card_id]
                assert api(serve, "POST", f"/api/cards/{card_id}/approve").json()["card"]["outcome"]["ok"]
                await changes.wait(0, timeout=60)
                assert await names(client) - before == set(FILES_FULL_ALL)
        finally:
            serve.stop()


class TestBridge:
    """`facade bridge` injects identity from its environment into every call."""

    async def test_bridge_lists_and_calls_as_its_agent(self, server: ServerProcess, tmp_path: Path) -> None:
        env = {"FACADE_URL": server.url, "FACADE_TOKEN": DEV["atlas"], "FACADE_CONVERSATION_ID": "bridge-test"}
        async with Client(facade_command(tmp_path, "bridge", env=env), mode="legacy") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            # The model's own auth_token is overwritten by the bridge's.
            result = await client.call_tool("files.list", {"path": "", "auth_token": "made-up"})
        async with mcp_client(server.url, DEV["atlas"]) as direct:
            expected = {t.name for t in (await direct.list_tools()).tools}
        assert listed == expected
        assert not result.is_error, text_of(result)

    async def test_bridge_passes_list_changed_on(self, server: ServerProcess, tmp_path: Path, era: str) -> None:
        """Downstream in either era (a 2026-07-28 client hears it on subscriptions/listen), after
        an approval on the facade behind the bridge."""
        conversation = f"bridge-changes-{era}"
        env = {"FACADE_URL": server.url, "FACADE_TOKEN": DEV["francis"], "FACADE_CONVERSATION_ID": conversation}
        params = facade_command(tmp_path, "bridge", env=env)
        async with counting(lambda handler: Client(params, mode=era, message_handler=handler), era) as (client, changes):
            capabilities = client.server_capabilities
            assert capabilities.tools is not None and capabilities.tools.list_changed
            before = await names(client)
            held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "through the bridge"})
            assert not held.is_error, text_of(held)
            assert api(server, "POST", f"/api/cards/{held.structured_content['card_id']}/approve").json()["card"]["outcome"]["ok"]
            await changes.wait(0, timeout=60)
            assert await names(client) - before == set(FILES_FULL_ALL)

    async def test_bridge_without_a_token(self, tmp_path: Path) -> None:
        import subprocess

        params = facade_command(tmp_path, "bridge", env={"FACADE_TOKEN": ""})
        done = subprocess.run([params.command, *params.args], env=params.env, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 2 and "set FACADE_TOKEN" in done.stderr

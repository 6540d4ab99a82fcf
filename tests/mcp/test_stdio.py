"""stdio: `facade stdio --agent NAME` for desktop clients, and `facade bridge` in front of HTTP."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from facade.serving.calls import unknown_tool_message
from facade.catalogue.discovery import discover
from tests.support import DEV, ServerProcess, base_env, mcp_client, text_of

pytestmark = pytest.mark.anyio
REGISTRY = discover()
FILES_FULL = next(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")


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

    async def test_bridge_without_a_token(self, tmp_path: Path) -> None:
        import subprocess

        params = facade_command(tmp_path, "bridge", env={"FACADE_TOKEN": ""})
        done = subprocess.run([params.command, *params.args], env=params.env, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 2 and "set FACADE_TOKEN" in done.stderr

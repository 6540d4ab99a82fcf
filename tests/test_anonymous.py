"""The anonymous agent (`FACADE_ANONYMOUS_AGENT`, `facade serve --anonymous-agent`): on loopback
only, a request without a token acts as one agent, so that a client that cannot send a header
(the official conformance suite) can connect; any token that is sent still decides."""

from __future__ import annotations

import json

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from facade.catalogue.agents import load_agents
from facade.catalogue.discovery import discover
from facade.errors import ConfigError, IdentityError
from facade.access.identity import DEV_RUNTIME_TOKEN, Caller, Principal, TokenBook, resolve_caller, resolve_listing
from facade.settings import DEMO_AGENTS
from tests.support import DEV, ServerProcess, base_env, free_port, mcp_client, raw_call, text_of

REGISTRY = discover()
AGENTS = load_agents(DEMO_AGENTS, REGISTRY, environ={})
FILES_FULL = next(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")


@pytest.fixture
def book() -> TokenBook:
    return TokenBook(AGENTS, on_loopback=True, anonymous_agent="atlas")


class TestTokenBook:
    """No token at all means the anonymous agent; every token sent is judged as before."""

    def test_no_token_is_the_anonymous_agent(self, book: TokenBook) -> None:
        assert resolve_listing(book, None) == Principal("agent", "atlas")
        assert resolve_caller(book, bearer=None, injected=None) == Caller("atlas")
        assert resolve_caller(book, bearer=None, injected="") == Caller("atlas")

    def test_a_token_sent_still_decides(self, book: TokenBook) -> None:
        assert resolve_listing(book, DEV["francis"]) == Principal("agent", "francis")
        assert resolve_caller(book, bearer=DEV["francis"], injected=None) == Caller("francis")
        assert resolve_caller(book, bearer=None, injected=DEV["infra"]) == Caller("infra")
        with pytest.raises(IdentityError, match="not accepted"):
            resolve_listing(book, "guess-me")
        with pytest.raises(IdentityError, match="not known"):
            resolve_caller(book, bearer="guess-me", injected=None)
        with pytest.raises(IdentityError, match="no agent token"):
            resolve_caller(book, bearer=None, injected="guess-me")
        with pytest.raises(IdentityError, match="runtime token"):
            resolve_caller(book, bearer=DEV_RUNTIME_TOKEN, injected=None)

    def test_off_by_default(self) -> None:
        with pytest.raises(IdentityError):
            resolve_listing(TokenBook(AGENTS, on_loopback=True), None)

    def test_refused_off_loopback(self) -> None:
        with pytest.raises(ConfigError, match="only while the server listens on loopback"):
            TokenBook(AGENTS, on_loopback=False, anonymous_agent="atlas")

    def test_unknown_agent(self) -> None:
        with pytest.raises(ConfigError, match="'nobody', which is not an agent here; agents: atlas"):
            TokenBook(AGENTS, on_loopback=True, anonymous_agent="nobody")


class TestServeRefuses:
    """`facade serve` will not start with an anonymous agent on a non-loopback address."""

    @pytest.mark.parametrize(
        ("args", "env"),
        [
            (["--host", "0.0.0.0", "--anonymous-agent", "atlas"], {}),
            ([], {"FACADE_HOST": "0.0.0.0", "FACADE_ANONYMOUS_AGENT": "atlas"}),
        ],
        ids=["options", "environment"],
    )
    def test_on_every_interface(self, tmp_path: Path, args: list[str], env: dict[str, str]) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "facade.cli", "serve", "--port", str(free_port()), *args],
            cwd=tmp_path,
            env={**os.environ, **base_env(tmp_path), **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("error: the anonymous agent 'atlas'") and "loopback" in done.stderr
        assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def anonymous_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("anonymous"), env={"FACADE_ANONYMOUS_AGENT": "atlas"}).start()
    yield proc
    proc.stop()


async def names(server: ServerProcess, token: str | None, era: str) -> set[str]:
    async with mcp_client(server.url, token, mode=era) as client:
        return {t.name for t in (await client.list_tools()).tools}


@pytest.mark.anyio
class TestOverHttp:
    """A real `facade serve` on loopback with FACADE_ANONYMOUS_AGENT=atlas, both eras."""

    async def test_no_header_is_atlas(self, anonymous_server: ServerProcess, era: str) -> None:
        listed = await names(anonymous_server, None, era)
        assert listed == await names(anonymous_server, DEV["atlas"], era)
        assert FILES_FULL in listed
        async with mcp_client(anonymous_server.url, None, mode=era) as client:
            result = await client.call_tool("files.list", {"path": ""})
        assert not result.is_error, text_of(result)

    async def test_a_bearer_wins(self, anonymous_server: ServerProcess, era: str) -> None:
        francis = await names(anonymous_server, DEV["francis"], era)
        assert FILES_FULL not in francis and "files.list" in francis

    async def test_a_bad_bearer_is_refused(self, anonymous_server: ServerProcess, era: str) -> None:
        """A token that is sent decides: refused with 401 before anything is served, in either
        era, so the client cannot connect at all (facade/mcp/gate.py)."""
        with pytest.raises(BaseExceptionGroup) as caught:
            async with mcp_client(anonymous_server.url, "not-a-token", mode=era):
                pass
        assert caught.group_contains(MCPError, match="not accepted"), caught.value

    def test_a_bad_injected_token_is_refused(self, anonymous_server: ServerProcess) -> None:
        result = raw_call(anonymous_server.url, "files.list", {"path": "", "auth_token": "not-a-token"})
        assert result["isError"] and "no agent token" in result["content"][0]["text"]

    def test_the_api_still_needs_a_token(self, anonymous_server: ServerProcess) -> None:
        assert httpx2.get(f"{anonymous_server.base}/api/agents", timeout=10).status_code == 401

    def test_start_is_logged_as_a_warning(self, anonymous_server: ServerProcess) -> None:
        lines = [json.loads(line) for line in anonymous_server.log().splitlines() if "identity.anonymous_agent" in line]
        assert lines and lines[0]["level"] == "warning" and lines[0]["agent"] == "atlas"

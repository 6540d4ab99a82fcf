"""Shared test machinery: a real `facade serve` process, real databases, and MCP clients. The
server process and the raw request shapes are the benchmarks' (scripts/benchkit.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

# Re-exported: the tests take the raw request shapes, the eras and free_port from here too.
import benchkit  # noqa: E402
from benchkit import (  # noqa: E402
    ACCEPT,
    POSTGRES_ADMIN_URL,
    LEGACY,
    MODERN,
    MODERN_META,
    LoopbackServer,
    free_port,
    jsonrpc,
    legacy_body,
    legacy_open,
    modern_body,
    modern_headers,
    workdir_env,
)
from benchkit import DEV as DEMO_DEV  # noqa: E402

REDIS_URL = os.environ.get("FACADE_TEST_REDIS", "redis://127.0.0.1:6379/0")
DEV = {**DEMO_DEV, "walker": "facade-dev-walker"}  # walker: the tests' own agent (write_agents)


def services_required() -> bool:
    return os.environ.get("FACADE_REQUIRE_SERVICES") == "1"


def need_service(name: str, reason: str) -> None:
    """Skip with the reason, unless FACADE_REQUIRE_SERVICES=1 makes a missing service a failure."""
    if services_required():
        pytest.fail(f"{name} is required (FACADE_REQUIRE_SERVICES=1) but unavailable: {reason}")
    pytest.skip(f"{name} unavailable: {reason}")


def emptied_redis(db: int) -> str:
    """The URL of Redis database `db`, emptied: each test file that needs one has its own number
    (the suite runs two files at a time, and an emptied database must be nobody else's)."""
    import redis

    url = REDIS_URL.rsplit("/", 1)[0] + f"/{db}"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        client.flushdb()
        client.close()
    except redis.RedisError as exc:
        need_service("Redis", f"{url}: {exc}")
    return url


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh PostgreSQL database for one test session, dropped afterwards."""
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(benchkit.postgres_database(POSTGRES_ADMIN_URL))
        except benchkit.PostgresUnavailable as exc:
            need_service("PostgreSQL", str(exc))
        yield url


def write_agents(folder: Path) -> Path:
    """The packaged demo agents plus `walker`, which sees every domain in full mode but `skills`,
    in core mode so that the walk can ask for it with skills.elevate."""
    from facade.catalogue.discovery import discover
    from facade.settings import DEMO_AGENTS

    shutil.copytree(DEMO_AGENTS, folder, dirs_exist_ok=True)
    apps = "\n".join(f'{d} = "{"core" if d == "skills" else "full"}"' for d in discover().domains)
    (folder / "walker").mkdir(exist_ok=True)
    (folder / "walker" / "agent.toml").write_text(
        f'name = "walker"\ndescription = "Test agent that sees everything."\n\n[apps]\n{apps}\n'
    )
    return folder


@dataclass
class ServerProcess(LoopbackServer):
    """A `facade serve` subprocess on a free loopback port, with the tests' agents; its log is
    server.log in its work folder."""

    name: str = "server"

    def setup(self) -> dict[str, str]:
        return base_env(self.workdir)


def base_env(workdir: Path) -> dict[str, str]:
    """Everything a test server or CLI run needs to stay inside `workdir` (its CPU claims too)."""
    return workdir_env(workdir, write_agents)


@contextlib.asynccontextmanager
async def mcp_client(
    url: str,
    token: str | None,
    *,
    mode: str = "auto",
    headers: dict[str, str] | None = None,
    message_handler=None,  # type: ignore[no-untyped-def]
    elicitation_callback=None,  # type: ignore[no-untyped-def]
) -> AsyncIterator[Client]:
    """The official SDK client over real HTTP, with a bearer token when given."""
    all_headers = dict(headers or {})
    if token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    http = create_mcp_http_client(headers=all_headers)
    async with http:
        async with Client(
            streamable_http_client(url, http_client=http),
            mode=mode,
            cache=None,
            message_handler=message_handler,
            elicitation_callback=elicitation_callback,
        ) as client:
            yield client


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    return "".join(getattr(c, "text", "") for c in result.content)


def modern_post(url: str, method: str, params: dict, headers: dict[str, str] | None = None, name: str | None = None) -> dict:  # type: ignore[type-arg]
    """One 2026-07-28 request as a plain HTTP POST; returns the JSON-RPC response."""
    response = httpx2.post(url, content=modern_body(method, params), headers={**modern_headers(method, name), **(headers or {})}, timeout=30)
    return jsonrpc(response)


def legacy_post(url: str, method: str, params: dict, headers: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    """A 2025-11-25 session (initialize, initialized) and one request in it, as plain HTTP."""
    with httpx2.Client(timeout=30) as client:
        session = legacy_open(client, url, headers or {})
        response = client.post(url, content=legacy_body(method, params), headers=session)
        client.delete(url, headers=session)
    return jsonrpc(response)


def raw_call(url: str, name: str, arguments: dict, headers: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    """A 2026-07-28 `tools/call` as one plain HTTP POST: for callers that never list tools
    (the SDK client re-lists to validate results, which needs a bearer)."""
    return modern_post(url, "tools/call", {"name": name, "arguments": arguments}, headers, name=name)["result"]


def raw_list(url: str, token: str, era: str, conversation: str | None = None) -> list:  # type: ignore[type-arg]
    """The tools array of a `tools/list` exactly as it came over the wire, key order kept."""
    headers = {"Authorization": f"Bearer {token}", **({"X-Conversation-Id": conversation} if conversation else {})}
    post = legacy_post if era == "legacy" else modern_post
    return post(url, "tools/list", {}, headers)["result"]["tools"]

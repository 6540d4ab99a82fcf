"""Shared test machinery: a real `facade serve` process, real databases, and MCP clients."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parent.parent
POSTGRES_ADMIN_URL = os.environ.get("FACADE_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("FACADE_TEST_REDIS", "redis://127.0.0.1:6379/0")
DEV = {name: f"facade-dev-{name}" for name in ("atlas", "francis", "infra", "walker", "runtime", "operator")}


def services_required() -> bool:
    return os.environ.get("FACADE_REQUIRE_SERVICES") == "1"


def need_service(name: str, reason: str) -> None:
    """Skip with the reason, unless FACADE_REQUIRE_SERVICES=1 makes a missing service a failure."""
    if services_required():
        pytest.fail(f"{name} is required (FACADE_REQUIRE_SERVICES=1) but unavailable: {reason}")
    pytest.skip(f"{name} unavailable: {reason}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh PostgreSQL database for one test session, dropped afterwards."""
    from sqlalchemy import create_engine, text

    name = f"facade_test_{uuid.uuid4().hex[:10]}"
    try:
        admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        need_service("PostgreSQL", f"{POSTGRES_ADMIN_URL}: {exc.__class__.__name__}: {exc}".splitlines()[0])
    try:
        yield POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def write_agents(folder: Path) -> Path:
    """The repo's demo agents plus `walker`, which sees every domain in full mode but `skills`,
    in core mode so that the walk can ask for it with skills.elevate."""
    from facade.discovery import discover

    shutil.copytree(REPO / "agents", folder, dirs_exist_ok=True)
    apps = "\n".join(f'{d} = "{"core" if d == "skills" else "full"}"' for d in discover().domains)
    (folder / "walker").mkdir(exist_ok=True)
    (folder / "walker" / "agent.toml").write_text(
        f'name = "walker"\ndescription = "Test agent that sees everything."\n\n[apps]\n{apps}\n'
    )
    return folder


@dataclass
class ServerProcess:
    """A `facade serve` subprocess on a free loopback port."""

    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def log_path(self) -> Path:
        return self.workdir / "server.log"

    def start(self, timeout: float = 180) -> ServerProcess:
        env = {**os.environ, **base_env(self.workdir), **self.env}
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "facade.cli", "serve", "--port", str(self.port)],
            cwd=self.workdir,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"facade serve exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx2.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"facade serve did not become healthy in {timeout}s:\n{self.log()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "_log", None):
            self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def base_env(workdir: Path) -> dict[str, str]:
    """Everything a test server or CLI run needs to stay inside `workdir`."""
    agents = workdir / "agents"
    if not agents.exists():
        write_agents(agents)
    return {
        "FACADE_DATA_DIR": str(workdir / "data"),
        "FACADE_AGENTS_DIR": str(agents),
        "FACADE_FILES_ROOT": str(workdir / "files"),
        "FACADE_TOOLS_TEMPLATE": str(REPO / "TOOLS.md.j2"),
        "FACADE_LOG_JSON": "true",
        "PYTHONPATH": str(REPO),
    }


@contextlib.asynccontextmanager
async def mcp_client(
    url: str,
    token: str | None,
    *,
    mode: str = "auto",
    headers: dict[str, str] | None = None,
    message_handler=None,  # type: ignore[no-untyped-def]
) -> AsyncIterator[Client]:
    """The official SDK client over real HTTP, with a bearer token when given."""
    all_headers = dict(headers or {})
    if token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    http = create_mcp_http_client(headers=all_headers)
    async with http:
        async with Client(
            streamable_http_client(url, http_client=http), mode=mode, cache=None, message_handler=message_handler
        ) as client:
            yield client


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    return "".join(getattr(c, "text", "") for c in result.content)


MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ACCEPT = {"Accept": "application/json, text/event-stream"}


def modern_post(url: str, method: str, params: dict, headers: dict[str, str] | None = None, name: str | None = None) -> dict:  # type: ignore[type-arg]
    """One 2026-07-28 request as a plain HTTP POST; returns the JSON-RPC response."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "facade-tests", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    routing = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method, **({"Mcp-Name": name} if name else {})}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    response = httpx2.post(url, json=body, headers={**ACCEPT, **routing, **(headers or {})}, timeout=30)
    return _jsonrpc(response)


def legacy_post(url: str, method: str, params: dict, headers: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    """A 2025-11-25 session (initialize, initialized) and one request in it, as plain HTTP."""
    base = {**ACCEPT, **(headers or {})}
    init = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "facade-tests", "version": "1"}}
    opened = httpx2.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}, headers=base, timeout=30)
    session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    httpx2.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**base, **session}, timeout=30)
    response = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers={**base, **session}, timeout=30)
    httpx2.delete(url, headers={**base, **session}, timeout=30)
    return _jsonrpc(response)


def _jsonrpc(response: httpx2.Response) -> dict:  # type: ignore[type-arg]
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def raw_call(url: str, name: str, arguments: dict, headers: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    """A 2026-07-28 `tools/call` as one plain HTTP POST: for callers that never list tools
    (the SDK client re-lists to validate results, which needs a bearer)."""
    return modern_post(url, "tools/call", {"name": name, "arguments": arguments}, headers, name=name)["result"]


def raw_list(url: str, token: str, era: str, conversation: str | None = None) -> list:  # type: ignore[type-arg]
    """The tools array of a `tools/list` exactly as it came over the wire, key order kept."""
    headers = {"Authorization": f"Bearer {token}", **({"X-Conversation-Id": conversation} if conversation else {})}
    post = legacy_post if era == "legacy" else modern_post
    return post(url, "tools/list", {}, headers)["result"]["tools"]

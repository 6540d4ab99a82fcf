"""What the serving and load benchmarks share: the servers they start on loopback, the raw MCP
request shapes of both protocol eras (plain HTTP, no SDK client), and percentiles.

`python scripts/benchkit.py baseline --port P` serves scripts/baseline.py's MCPServer with
uvicorn, on the database that `FACADE_DATA_DIR` / `FACADE_DATABASE_URL` point at (the one the
facade under test already migrated and seeded), so both sides run the same handlers on the
same rows.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

REPO = Path(__file__).resolve().parent.parent
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ERAS = (LEGACY, MODERN)
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
DEV = {name: f"facade-dev-{name}" for name in ("atlas", "francis", "infra", "runtime", "operator")}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no samples."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def workdir_env(workdir: Path) -> dict[str, str]:
    """Everything `facade serve` (and the baseline beside it) needs to stay inside `workdir`."""
    agents = workdir / "agents"
    if not agents.exists():
        shutil.copytree(REPO / "agents", agents)
    (workdir / "files").mkdir(exist_ok=True)
    return {
        "FACADE_DATA_DIR": str(workdir / "data"),
        "FACADE_AGENTS_DIR": str(agents),
        "FACADE_FILES_ROOT": str(workdir / "files"),
        "FACADE_TOOLS_TEMPLATE": str(REPO / "TOOLS.md.j2"),
        "FACADE_LOG_JSON": "true",
        "PYTHONPATH": str(REPO),
    }


@dataclass
class Served:
    """A server subprocess on a free loopback port, its log in the work folder."""

    name: str
    argv: list[str]
    workdir: Path
    port: int = field(default_factory=free_port)
    health: str = "/healthz"
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 300) -> Served:
        return self.launch().wait(timeout)

    def launch(self) -> Served:
        env = {**os.environ, **workdir_env(self.workdir)}
        self._log = open(self.workdir / f"{self.name}.log", "ab")
        self.process = subprocess.Popen(
            [*self.argv, "--port", str(self.port)], cwd=self.workdir, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        return self

    def wait(self, timeout: float = 300) -> Served:
        """Until the server answers on its port (its start-up imports ~450 capabilities)."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: see {self._log.name}")
            try:
                httpx2.get(f"http://127.0.0.1:{self.port}{self.health}", timeout=1)
                return self
            except httpx2.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer in {timeout}s: see {self._log.name}")

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


def facade_server(workdir: Path) -> Served:
    return Served("facade", [sys.executable, "-m", "facade.cli", "serve"], workdir)


def baseline_server(workdir: Path) -> Served:
    return Served("baseline", [sys.executable, str(Path(__file__).resolve()), "baseline"], workdir, health="/mcp")


def fresh_workdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))


# --- raw MCP over HTTP --------------------------------------------------------------------------


def modern_body(method: str, params: dict[str, Any], rid: int = 1) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "facade-bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}).encode()


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    return {**ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": method, **({"Mcp-Name": name} if name else {})}


def legacy_body(method: str, params: dict[str, Any], rid: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


INIT = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "facade-bench", "version": "1"}}


def legacy_open(client: httpx2.Client, url: str, headers: dict[str, str]) -> dict[str, str]:
    """initialize + notifications/initialized; returns the headers of the open session."""
    opened = client.post(url, content=legacy_body("initialize", INIT, 0), headers={**ACCEPT, **headers})
    opened.raise_for_status()
    session = {**ACCEPT, **headers, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    client.post(url, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(), headers=session)
    return session


async def legacy_open_async(client: httpx2.AsyncClient, url: str, headers: dict[str, str]) -> dict[str, str]:
    opened = await client.post(url, content=legacy_body("initialize", INIT, 0), headers={**ACCEPT, **headers})
    opened.raise_for_status()
    session = {**ACCEPT, **headers, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    (await client.post(url, content=note, headers=session)).raise_for_status()
    return session


def jsonrpc(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC message of a response, whether it came as JSON or as one SSE event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def failure(response: httpx2.Response) -> str | None:
    """Why a tools/* response is not a success, or None."""
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    message = jsonrpc(response)
    if "error" in message:
        return f"JSON-RPC error: {json.dumps(message['error'])[:200]}"
    result = message.get("result", {})
    if result.get("isError"):
        return f"tool error: {json.dumps(result)[:300]}"
    return None


# --- the baseline server ------------------------------------------------------------------------


def serve_baseline(port: int) -> None:
    import uvicorn

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import build_baseline

    from facade.core import build_core

    core = build_core()  # the same settings, registry and database as the facade beside it
    server = build_baseline(core.registry, core.sessions)
    print(f"baseline: MCPServer with {len(core.registry)} tools on 127.0.0.1:{port}", file=sys.stderr)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "baseline" and sys.argv[2] == "--port":
        serve_baseline(int(sys.argv[3]))
    else:
        sys.exit("usage: python scripts/benchkit.py baseline --port PORT")

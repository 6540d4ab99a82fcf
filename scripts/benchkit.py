"""What the benchmarks and the tests share: servers started on loopback, the raw MCP request shapes
of both protocol eras (plain HTTP, no SDK client), and percentiles. tests/support.py builds on it.

`python scripts/benchkit.py baseline --port P` serves scripts/baseline.py's MCPServer with
uvicorn (`baseline --stdio`: over stdin/stdout), on the database that `FACADE_DATA_DIR` /
`FACADE_DATABASE_URL` point at (the one the facade under test already migrated and seeded), so
both sides run the same handlers on the same rows. `empty --port P` (or `--stdio`) serves the
SDK's MCPServer with no tools at all: scripts/bench_startup.py's floor.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx2

REPO = Path(__file__).resolve().parent.parent
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ERAS = (LEGACY, MODERN)
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
DEV = {name: f"facade-dev-{name}" for name in ("atlas", "francis", "infra", "pocket", "runtime", "operator")}
# A PostgreSQL database the benchmarks and the tests may create databases on (trust auth, loopback).
POSTGRES_ADMIN_URL = os.environ.get("FACADE_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
CLIENT_INFO = {"name": "facade-raw-http", "version": "1"}


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


def reference_loop_ms(rounds: int = 3) -> float:
    """This machine's speed now, as the best of `rounds` timings of one fixed pure-Python loop.

    The absolute figures (seconds to healthy, CPU ms per call) move with the machine as much as
    with the code: the official SDK's MCPServer, serving the same domains, started in 2.2 s on
    2026-12-04 and in 3.6-3.9 s on 2026-12-06, on machines of the same kind, both at low load.
    A report prints this beside its load average, timed at the start and at the end of its run,
    so that an absolute figure can be read against the speed of the machine that made it; ratios
    within one run need no such help. This thread's CPU time, so that a busy machine's waiting
    and the run's other threads are left out: what it shows is what a CPU second buys there.
    """
    best = float("inf")
    for _ in range(rounds):
        started = time.thread_time()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.thread_time() - started)
    return best * 1000


BUSY_CPUS = 0.5  # other processes' CPUs' worth of work that makes a machine busy for a report


def machine_line(reference_ms: tuple[float, float], **loads: tuple[float, ...]) -> str:
    """The line every report prints about the machine: the load averages it took (by when), cores,
    the reference loop at the start and at the end of the run (the speed moves within a run
    too), and what other processes keep busy once the run is over."""
    load = ", ".join(f"{when} {' '.join(f'{x:.2f}' for x in values)}" for when, values in loads.items())
    before, after = reference_ms
    line = (f"load average {load} (cores: {os.cpu_count()}); reference loop {before:.0f} ms CPU at the start, "
            f"{after:.0f} at the end (scripts/benchkit.py)")
    others = others_busy()
    if others is not None:
        line += f"; other processes busy {others:.2f} CPUs after the run"
        if others >= BUSY_CPUS:
            # 2026-12-07: a stray process spinning on one of two CPUs through a run hid a start-up
            # change that overlaps work on the second CPU (5.00 -> 5.17 s; 5.58 -> 4.82 s without it).
            line += " (a busy machine: ratios within the run hold, absolute figures and gains from a second CPU may not)"
    return line


def others_busy(seconds: float = 0.5) -> float | None:
    """CPUs' worth of work done over `seconds` by every process but this one (Linux /proc/stat
    less this process's own CPU time); None where the system does not say."""
    def busy_ticks() -> int | None:
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return None
        return sum(fields) - fields[3] - fields[4]  # all but idle and iowait

    first, own = busy_ticks(), time.process_time()
    if first is None:
        return None
    time.sleep(seconds)
    last = busy_ticks()
    if last is None:
        return None
    others = (last - first) / os.sysconf("SC_CLK_TCK") - (time.process_time() - own)
    return max(others, 0.0) / seconds


def delivered(report: dict[str, Any], printed: Callable[[dict[str, Any], str], None], command: str,
              json_path: Path | None) -> int:
    """A load benchmark's ending: its report printed (with its first errors) and written to
    `json_path` when given; the exit code is 1 when any call got a wrong answer, never for a speed."""
    printed(report, command)
    if report["first_errors"]:
        print("\nfirst errors:", *report["first_errors"], sep="\n  ")
    if json_path:
        json_path.write_text(json.dumps(report, indent=2))
    return 1 if sum(r["errors"] for r in report["rows"]) else 0


def pinned_cpu(log_text: str) -> int | None:
    """The CPU a server's JSON log says it pinned (`cpu.pinned`, facade/affinity.py), None when
    it pinned none."""
    for line in log_text.splitlines():
        if '"cpu.pinned"' in line:
            with contextlib.suppress(ValueError, KeyError):
                return int(json.loads(line[line.index("{"):])["cpu"])
    return None


class PostgresUnavailable(RuntimeError):
    """No database could be created on the admin URL's server; the message says why."""


@contextlib.contextmanager
def postgres_database(admin_url: str = POSTGRES_ADMIN_URL) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database on `admin_url`'s server, dropped afterwards
    (connections still open to it too)."""
    from sqlalchemy import create_engine, text

    name = f"facade_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        admin.dispose()
        raise PostgresUnavailable(f"{admin_url}: {exc.__class__.__name__}: {exc}".splitlines()[0]) from exc
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def copy_demo_agents(folder: Path) -> Path:
    from facade.settings import DEMO_AGENTS

    shutil.copytree(DEMO_AGENTS, folder)
    return folder


def claims_scope(workdir: Path, part: str = "") -> str:
    """A CPU claims scope (facade/cpu_claims.py) of the work folder's own, `part` of it when given:
    from its whole path, since two runs' folders may share a name (pytest's per-test folders do)."""
    scope = f"w-{uuid.uuid5(uuid.NAMESPACE_URL, str(workdir.resolve())).hex[:16]}"
    return f"{scope}-{part}" if part else scope


def workdir_env(workdir: Path, write_agents: Callable[[Path], Path] = copy_demo_agents) -> dict[str, str]:
    """Everything `facade serve` (and the baseline beside it) needs to stay inside `workdir`. The
    agents folder is written once, by `write_agents` (the packaged demo agents unless told), and
    the demo data is seeded, as `facade serve --demo` does."""
    agents = workdir / "agents"
    if not agents.exists():
        write_agents(agents)
    return {
        "FACADE_DATA_DIR": str(workdir / "data"),
        "FACADE_AGENTS_DIR": str(agents),
        "FACADE_FILES_ROOT": str(workdir / "files"),
        "FACADE_SEED": "true",
        "FACADE_LOG_JSON": "true",
        # CPU claims of the folder's own (facade/cpu_claims.py): servers of other runs and tests
        # on the machine at the same time would otherwise decide whether this one pins.
        "FACADE_CPU_CLAIMS_SCOPE": claims_scope(workdir),
        "PYTHONPATH": str(REPO),
    }


@dataclass
class LoopbackServer:
    """A server subprocess on a free loopback port, its log in the work folder.

    Its environment is this process's, then `setup()`'s, then `env`. It is up once its `health`
    path answers with anything but a server error (a degraded `/healthz` is a 503).
    """

    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    name: str = "facade"
    argv: list[str] = field(default_factory=lambda: [sys.executable, "-m", "facade.cli", "serve"])
    health: str = "/healthz"
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def log_path(self) -> Path:
        return self.workdir / f"{self.name}.log"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def setup(self) -> dict[str, str]:
        """Prepares the work folder; returns the variables that keep the server inside it."""
        return workdir_env(self.workdir)

    def start(self, timeout: float = 300) -> LoopbackServer:
        return self.launch().wait(timeout)

    def launch(self) -> LoopbackServer:
        env = {**os.environ, **self.setup(), **self.env}
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [*self.argv, "--port", str(self.port)], cwd=self.workdir, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        return self

    def wait(self, timeout: float = 300) -> LoopbackServer:
        """Until the server is up (its start-up imports ~450 capabilities)."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; its log, {self.log_path}:\n{self.log()}")
            try:
                if httpx2.get(f"{self.base}{self.health}", timeout=1).status_code < 500:
                    return self
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} was not up on {self.health} in {timeout}s; its log, {self.log_path}:\n{self.log()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None:
            self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def facade_server(workdir: Path, env: dict[str, str] | None = None) -> LoopbackServer:
    return LoopbackServer(workdir, env=dict(env or {}))


def sdk_server(workdir: Path, env: dict[str, str] | None = None, kind: str = "baseline", name: str | None = None) -> LoopbackServer:
    """`python scripts/benchkit.py KIND` on a free port, KIND one of `SDK_SERVERS`: `baseline`,
    the MCPServer of the same capabilities, or `empty`, the MCPServer of none."""
    argv = [sys.executable, str(Path(__file__).resolve()), kind]
    return LoopbackServer(workdir, env=dict(env or {}), name=name or kind, argv=argv, health="/mcp")


def baseline_server(workdir: Path, env: dict[str, str] | None = None, name: str = "baseline") -> LoopbackServer:
    return sdk_server(workdir, env, "baseline", name)


def fresh_workdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))


# --- raw MCP over HTTP --------------------------------------------------------------------------

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def modern_body(method: str, params: dict[str, Any], rid: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": MODERN_META}}).encode()


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    return {**ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": method, **({"Mcp-Name": name} if name else {})}


def legacy_body(method: str, params: dict[str, Any], rid: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


INITIALIZE = legacy_body("initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}, 0)
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()


def _session(opened: httpx2.Response, headers: dict[str, str]) -> dict[str, str]:
    opened.raise_for_status()
    return {**ACCEPT, **headers, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}


def legacy_open(client: httpx2.Client, url: str, headers: dict[str, str]) -> dict[str, str]:
    """initialize + notifications/initialized; returns the headers that continue the session."""
    session = _session(client.post(url, content=INITIALIZE, headers={**ACCEPT, **headers}), headers)
    client.post(url, content=INITIALIZED, headers=session).raise_for_status()
    return session


async def legacy_open_async(client: httpx2.AsyncClient, url: str, headers: dict[str, str]) -> dict[str, str]:
    session = _session(await client.post(url, content=INITIALIZE, headers={**ACCEPT, **headers}), headers)
    (await client.post(url, content=INITIALIZED, headers=session)).raise_for_status()
    return session


def message_of(content_type: str, text: str) -> dict[str, Any]:
    """The JSON-RPC message of a response body, whether it came as JSON or as one SSE event."""
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return json.loads(text)


def jsonrpc(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC message of a response, whether it came as JSON or as one SSE event."""
    return message_of(response.headers.get("content-type", ""), response.text)


def failure(response: httpx2.Response) -> str | None:
    """Why a tools/* response is not a success, or None."""
    return answer_failure(response.status_code, response.headers.get("content-type", ""), response.text)


def answer_failure(status: int, content_type: str, text: str) -> str | None:
    """Why a tools/* answer (its status, Content-Type and body) is not a success, or None; shared
    with scripts/loadgen.py, which sees raw bytes rather than an httpx2 response."""
    if status != 200:
        return f"HTTP {status}: {text[:200]}"
    try:
        message = message_of(content_type, text)
    except (ValueError, IndexError) as exc:
        return f"not a JSON-RPC message ({type(exc).__name__}): {text[:200]}"
    if "error" in message:
        return f"JSON-RPC error: {json.dumps(message['error'])[:200]}"
    if not isinstance(result := message.get("result"), dict):
        return f"no result: {text[:200]}"
    if result.get("isError"):
        return f"tool error: {json.dumps(result)[:300]}"
    return None


# --- the baseline server ------------------------------------------------------------------------


def build_baseline_server(kind: str = "baseline") -> tuple[Any, int]:
    """MCPServer (or, as `kind="fastmcp"`, FastMCP) as a deployment of it starts: the same
    settings, domains and database as the facade beside it, and nothing of the facade's own (no
    agents, views or announced schemas)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import build_baseline, build_fastmcp

    from facade.catalogue.discovery import discover
    from facade.serving.database import make_engine, session_factory
    from facade.settings import Settings

    settings = Settings()
    registry = discover(settings.extra_domain_modules)
    engine = make_engine(settings.effective_database_url, settings.database_pool_size)
    build = build_fastmcp if kind == "fastmcp" else build_baseline
    return build(registry, session_factory(engine)), len(registry)


def serve_baseline(port: int | None) -> None:
    """Over streamable HTTP on `port`, or over stdin/stdout when it is None."""
    server, tools = build_baseline_server()
    if os.environ.get("BENCH_BASELINE_AFFINITY"):  # bench_throughput.py --affinity: the facade's own policy
        from facade.affinity import pin
        from facade.settings import Settings

        pin(os.environ["BENCH_BASELINE_AFFINITY"], scope=Settings().cpu_claims_scope)  # workdir_env's, read as the facade reads it
    print(f"baseline: MCPServer with {tools} tools on {f'127.0.0.1:{port}' if port else 'stdio'}", file=sys.stderr)
    _run_sdk_server(server, port)


def serve_empty(port: int | None) -> None:
    """MCPServer with no tools, no domains and no database, over streamable HTTP on `port` or
    over stdin/stdout: what starting any server on this SDK and HTTP stack costs on the machine,
    the floor under scripts/bench_startup.py's seconds."""
    from mcp.server.mcpserver import MCPServer

    _run_sdk_server(MCPServer("empty"), port)


def _run_sdk_server(server: Any, port: int | None) -> None:
    if port is None:
        server.run("stdio")
        return
    _run_http(server.streamable_http_app(), port)


def _run_http(app: Any, port: int) -> None:
    import uvicorn

    from facade.cli.httpstack import http_stack

    # The facade's loop and HTTP implementation, so that the comparison is of the servers alone.
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", **http_stack().uvicorn_options())


def serve_fastmcp(port: int) -> None:
    """FastMCP over streamable HTTP on `port` (scripts/bench_throughput.py)."""
    server, tools = build_baseline_server("fastmcp")
    print(f"fastmcp: FastMCP with {tools} tools on 127.0.0.1:{port}", file=sys.stderr)
    _run_http(server.http_app(path="/mcp"), port)


# The SDK's servers by kind: what `sdk_server(kind=...)` starts, over HTTP or stdio.
SDK_SERVERS = {"baseline": serve_baseline, "empty": serve_empty}

if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 3 and args[0] in SDK_SERVERS and args[1] == "--port":
        SDK_SERVERS[args[0]](int(args[2]))
    elif len(args) == 2 and args[0] in SDK_SERVERS and args[1] == "--stdio":
        SDK_SERVERS[args[0]](None)
    elif len(args) == 3 and args[0] == "fastmcp" and args[1] == "--port":
        serve_fastmcp(int(args[2]))
    else:
        sys.exit(f"usage: python scripts/benchkit.py ({' | '.join(SDK_SERVERS)}) (--port PORT | --stdio) | fastmcp --port PORT")

"""The throughput benchmark: `tools/call` under concurrent load, facade against the official SDK's
`MCPServer`, FastMCP and a floor, in one run, over loopback.

Sides, each a subprocess on the same freshly migrated and seeded SQLite database:
- `facade`: `facade serve --demo` (`--workers N` adds workers, on Redis: `--redis-url`);
- `mcpserver`: scripts/baseline.py's `MCPServer` serving the same capabilities in uvicorn
  (scripts/benchkit.py builds it, as for bench_serve.py);
- `fastmcp`: FastMCP serving them the same way, when a Python with `fastmcp` is given
  (`--fastmcp-python`; it needs the facade installed beside it) or this one has it; else
  skipped with a note;
- `floor`: a bare Starlette app in uvicorn that answers every call with the facade's own
  response bytes for it, captured at the start of the run: what HTTP and the server cost
  without any MCP work.

Calls: `files.stat` and `projects.project_get`, sent as the agent `atlas` (its bearer token; the
baseline servers, which know no agents, get the identity as arguments), in both eras: 2026-07-28
(self-contained POSTs with the routing headers) and 2025-11-25 (a session per client, opened
before the block, then POSTs in it). For each block `clients` concurrent clients, each on its own
keep-alive connection with one call in flight (no pipelining), send calls back to back for
`seconds`; every answer is checked (an HTTP error, a JSON-RPC error or `isError` counts, and fails
the run); calls/s, p50 and p99 are the clients' view, CPU per call is the server's (its process
and children, psutil) over the block, client CPU per call the load generator's.

The clients (`--client`):
- `lean` (default): scripts/loadgen.py, a uvloop `Protocol` client in a process of its own
  sending pre-encoded request bytes and framing answers with httptools. It costs ~0.01-0.03 ms
  CPU per call, so the server is what limits a block: the floor serves ~7,000-19,000 calls/s
  where it served ~1,300-1,900 behind httpx2 (2026-12-04, busy 2-core machine). Debian's `wrk`
  with a Lua check cost about the same per call (0.009-0.016 ms with 2 threads), but a session
  per connection needs a thread per connection (0.010-0.027 ms), its check is a substring
  match, and it counts whole seconds only, so it was not taken.
- `httpx`: httpx2 clients on one pool in this process, what a Python MCP client costs
  (~0.6-1.2 ms CPU per call): there the client, not the server, limits the faster sides.
A client CPU per call near the server's says the client, not the server, limited that block.

Blocks alternate side by side within each round, their order reversed every round, so a busy
machine hurts every side alike; only ratios within one run count. The load average (before and
after) is printed with the table.

    python scripts/bench_throughput.py                 # full: 2 rounds of 3 s blocks
    python scripts/bench_throughput.py --short         # CI: < 60 s
    python scripts/bench_throughput.py --short --client httpx
    python scripts/bench_throughput.py --workers 2 --redis-url redis://127.0.0.1:6379/9
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import (  # noqa: E402
    delivered,
    DEV,
    ERAS,
    LEGACY,
    MODERN,
    LoopbackServer,
    baseline_server,
    failure,
    fresh_workdir,
    legacy_body,
    legacy_open_async,
    machine_line,
    modern_body,
    modern_headers,
    percentile,
    reference_loop_ms,
)
from loadgen import raw_request, run_block  # noqa: E402

AGENT = "atlas"
CONVERSATION = "bench-throughput"
CALLS = {"files.stat": {"path": "/"}, "projects.project_get": {"project_id": 1}}
# One client: a call's latency with nothing queued before it, what FLOOR_TARGET is about (at 16
# and 64 a saturated server's p50 is the queue: clients / calls per second). 16 and 64: throughput.
CLIENTS = (1, 16, 64)
CLIENT_KINDS = ("lean", "httpx")
CALLS_TARGET = 4.0  # facade calls/s over MCPServer's (issue 17)
FLOOR_TARGET = 3.0  # facade p50 over the floor's plus the handler's own time, one client


@dataclass
class Plan:
    rounds: int
    seconds: float


PLANS = {"short": Plan(rounds=1, seconds=0.5), "full": Plan(rounds=2, seconds=3.0)}


@dataclass
class Side:
    served: LoopbackServer
    identity_in_arguments: bool  # the baselines know no agents: the identity rides the arguments

    @property
    def name(self) -> str:
        return self.served.name

    @property
    def auth(self) -> dict[str, str]:
        if self.identity_in_arguments:
            return {}
        return {"Authorization": f"Bearer {DEV[AGENT]}", "X-Conversation-Id": CONVERSATION}

    def request(self, era: str, tool: str, session: dict[str, str] | None) -> tuple[bytes, dict[str, str]]:
        arguments: dict[str, Any] = dict(CALLS[tool])
        if self.identity_in_arguments:  # baseline.py's signature: the model as `args`, identity beside it
            arguments = {"args": arguments, "auth_token": DEV[AGENT], "conversation_id": CONVERSATION}
        params = {"name": tool, "arguments": arguments}
        if era == MODERN:
            return modern_body("tools/call", params), {**modern_headers("tools/call", tool), **self.auth}
        assert session is not None
        return legacy_body("tools/call", params), session

    def wire(self, era: str, tool: str, session: dict[str, str] | None) -> bytes:
        """The request as the lean generator sends it, whole."""
        body, headers = self.request(era, tool, session)
        return raw_request("127.0.0.1", self.served.port, "/mcp", headers, body)

    def cpu_seconds(self) -> float:
        """CPU time of the server process and its children (uvicorn workers) so far."""
        root = psutil.Process(self.served.pid)
        total = 0.0
        for proc in [root, *root.children(recursive=True)]:
            try:
                times = proc.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += times.user + times.system
        return total


@dataclass
class Block:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    cpu: float = 0.0  # the server's
    client_cpu: float = 0.0  # the load generator's

    def error(self, why: str) -> None:
        self.errors += 1
        self.first_errors = (self.first_errors + [why])[:5]

    def add(self, other: Block) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.first_errors = (self.first_errors + other.first_errors)[:5]
        self.elapsed += other.elapsed
        self.cpu += other.cpu
        self.client_cpu += other.client_cpu

    def row(self) -> dict[str, Any]:
        ms = [x * 1000 for x in self.latencies]
        n = len(ms)
        return {
            "calls": n,
            "calls_per_s": n / self.elapsed if self.elapsed else 0.0,
            "p50_ms": percentile(ms, 50),
            "p99_ms": percentile(ms, 99),
            "cpu_ms_per_call": self.cpu * 1000 / n if n else float("nan"),
            "client_cpu_ms_per_call": self.client_cpu * 1000 / n if n else float("nan"),
            "errors": self.errors,
        }


async def block(side: Side, era: str, tool: str, clients: int, seconds: float, client: str) -> Block:
    """`clients` concurrent clients, each on its own connection (and, in 2025-11-25, its own
    session, opened before the block), calling back to back for `seconds`, from `client`: the lean
    generator's process (scripts/loadgen.py) or httpx2 in this one."""
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as pool:
        url = side.served.url
        sessions = (
            list(await asyncio.gather(*(legacy_open_async(pool, url, side.auth) for _ in range(clients))))
            if era == LEGACY
            else [None] * clients
        )
        if client == "lean":
            requests = [side.wire(era, tool, s) for s in sessions]
            generated, server_cpu = await asyncio.to_thread(
                run_block, "127.0.0.1", side.served.port, requests, seconds, side.cpu_seconds)
            out = Block(latencies=generated.latencies, errors=generated.error_count, first_errors=generated.errors,
                        elapsed=generated.elapsed, cpu=server_cpu, client_cpu=generated.cpu)
        else:
            out = await httpx_block(pool, side, era, tool, sessions, seconds)
        await asyncio.gather(*(pool.delete(url, headers=s) for s in sessions if s is not None))
    return out


async def httpx_block(pool: httpx2.AsyncClient, side: Side, era: str, tool: str,
                      sessions: list[dict[str, str] | None], seconds: float) -> Block:
    """The clients as httpx2 tasks on one pool in this process: what a Python MCP client costs."""
    out = Block()
    url = side.served.url
    for session in sessions[:1]:  # one untimed call: a view's first use is not throughput
        body, headers = side.request(era, tool, session)
        await pool.post(url, content=body, headers=headers)
    stop = 0.0

    async def one_client(session: dict[str, str] | None) -> None:
        body, headers = side.request(era, tool, session)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            try:
                response = await pool.post(url, content=body, headers=headers)
            except httpx2.HTTPError as exc:
                out.error(f"{type(exc).__name__}: {exc}")
                continue
            out.latencies.append(time.perf_counter() - started)
            if (why := failure(response)) is not None:
                out.error(why)

    cpu_before, client_before = side.cpu_seconds(), time.process_time()
    started = time.perf_counter()
    stop = started + seconds
    await asyncio.gather(*(one_client(s) for s in sessions))
    out.elapsed = time.perf_counter() - started
    out.cpu = side.cpu_seconds() - cpu_before
    out.client_cpu = time.process_time() - client_before
    return out


# --- the floor ----------------------------------------------------------------------------------


def capture(side: Side) -> dict[str, Any]:
    """The facade's own answers: each call in each era, and the handshake's, as raw bytes and the
    headers that say what they are; what the floor replays."""

    async def run() -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=60) as client:
            url = side.served.url
            session = await legacy_open_async(client, url, side.auth)
            found: dict[str, Any] = {}
            for era in ERAS:
                for tool in CALLS:
                    body, headers = side.request(era, tool, session if era == LEGACY else None)
                    response = await client.post(url, content=body, headers=headers)
                    if (why := failure(response)) is not None:
                        raise RuntimeError(f"facade answered {tool} ({era}) with {why}")
                    found[f"{era} {tool}"] = {
                        "type": response.headers["content-type"],
                        "body": base64.b64encode(response.content).decode(),
                    }
            await client.delete(url, headers=session)
            return found

    return asyncio.run(run())


def serve_floor(port: int, answers_file: Path) -> None:
    """A bare Starlette app answering with the captured bytes: the era from the session header,
    the tool from the body (parsed, as any server must)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from facade.cli.httpstack import http_stack

    answers = {
        key: (base64.b64decode(a["body"]), a["type"]) for key, a in json.loads(answers_file.read_text()).items()
    }
    session_headers = {"mcp-session-id": "floor", "content-type": "application/json"}
    initialized = json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": LEGACY, "capabilities": {},
                                                                    "serverInfo": {"name": "floor", "version": "1"}}})

    async def mcp(request: Request) -> Response:
        if request.method != "POST":
            return Response(status_code=200)
        message = json.loads(await request.body())
        method = message.get("method")
        if method == "initialize":
            return Response(initialized, headers=session_headers)
        if "id" not in message:
            return Response(status_code=202)
        era = LEGACY if "mcp-session-id" in request.headers else MODERN
        body, media = answers[f"{era} {message['params']['name']}"]
        return Response(body, media_type=media)

    app = Starlette(routes=[Route("/mcp", mcp, methods=["GET", "POST", "DELETE"])])
    # The facade's loop and HTTP implementation (facade/cli/httpstack.py): the floor of the same stack.
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, **http_stack().uvicorn_options())


def floor_server(workdir: Path, answers_file: Path) -> LoopbackServer:
    argv = [sys.executable, str(Path(__file__).resolve()), "floor", "--answers", str(answers_file)]
    return LoopbackServer(workdir, name="floor", argv=argv, health="/mcp")


# --- FastMCP ------------------------------------------------------------------------------------


def fastmcp_python(given: str | None) -> tuple[str | None, str]:
    """A Python that can serve FastMCP, or None and why not."""
    if given:
        check = subprocess.run([given, "-c", "import fastmcp, facade; print(fastmcp.__version__)"], capture_output=True, text=True)
        if check.returncode == 0:
            return given, f"fastmcp {check.stdout.strip()} ({given})"
        return None, f"FastMCP skipped: {given} cannot import fastmcp and facade ({check.stderr.strip().splitlines()[-1:]})"
    if importlib.util.find_spec("fastmcp") is not None:
        return sys.executable, "fastmcp (this Python)"
    return None, ("FastMCP skipped: not installed here (its dependencies differ from the facade's pins); "
                  "give --fastmcp-python PY, a Python with `fastmcp` and this repository installed")


def fastmcp_server(workdir: Path, python: str) -> LoopbackServer:
    argv = [python, str(Path(__file__).resolve().parent / "benchkit.py"), "fastmcp"]
    return LoopbackServer(workdir, name="fastmcp", argv=argv, health="/mcp")


# --- the run ------------------------------------------------------------------------------------


def facade_side(workdir: Path, workers: int, redis_url: str | None, affinity: str | None = None) -> LoopbackServer:
    argv = [sys.executable, "-m", "facade.cli", "serve", "--demo", *(["--workers", str(workers)] if workers > 1 else [])]
    env = {"FACADE_REDIS_URL": redis_url} if redis_url else {}
    if affinity is None:
        return LoopbackServer(workdir, env=env, argv=argv)
    return LoopbackServer(workdir, env={**env, "FACADE_CPU_AFFINITY": affinity}, argv=argv, name=f"facade_{affinity}")


def run(plan: Plan, workers: int, redis_url: str | None, fastmcp: str | None, short: bool, client: str,
        affinity: bool = False) -> dict[str, Any]:
    load_before = os.getloadavg()
    reference_ms = reference_loop_ms()
    workdir = fresh_workdir("bench-throughput-")
    facade = facade_side(workdir, workers, redis_url).launch()  # migrates and seeds the database
    servers = [facade, baseline_server(workdir).launch()]  # the baselines open it on their first call
    if affinity:  # each side's threads under the other CPU policy too (facade/affinity.py)
        facade.wait()  # the database is seeded before another facade opens it
        servers += [facade_side(workdir, workers, redis_url, "off").launch(),
                    baseline_server(workdir, {"BENCH_BASELINE_AFFINITY": "auto"}, name="baseline_auto").launch()]
    python, fastmcp_note = fastmcp_python(fastmcp)
    if python is not None and short:
        python, fastmcp_note = None, "FastMCP: full runs only (its 2026-07-28 calls took ~240 ms CPU each, 2026-12)"
    if python is not None:
        servers.append(fastmcp_server(workdir, python).launch())
    sides = [Side(facade, identity_in_arguments=False)]
    try:
        facade.wait()
        answers = workdir / "floor-answers.json"
        answers.write_text(json.dumps(capture(sides[0])))
        servers.append(floor_server(workdir, answers).launch())
        for server in servers[1:]:
            server.wait()
            sides.append(Side(server, identity_in_arguments=server.name in ("baseline", "baseline_auto", "fastmcp")))
        results: dict[tuple[str, str, int, str], Block] = {}
        for round_no in range(plan.rounds):
            for era in ERAS:
                for tool in list(CALLS)[:1] if short else CALLS:  # CI: one call, both eras, both loads
                    for clients in CLIENTS:
                        order = sides if round_no % 2 == 0 else sides[::-1]
                        for side in order:
                            measured = asyncio.run(block(side, era, tool, clients, plan.seconds, client))
                            results.setdefault((era, tool, clients, side.name), Block()).add(measured)
    finally:
        for server in servers:
            server.stop()
    rows = [{"era": era, "tool": tool, "clients": clients, "side": name, **b.row()}
            for (era, tool, clients, name), b in results.items()]
    first_errors = [e for b in results.values() for e in b.first_errors][:5]
    load = {"before": load_before, "after": os.getloadavg()}
    return {"plan": plan.__dict__, "workers": workers, "client": client, "load_average": load, "reference_loop_ms": (reference_ms, reference_loop_ms()),
            "fastmcp": fastmcp_note, "rows": rows,
            "handler_p50_ms": handler_times(workdir), "first_errors": first_errors, "workdir": str(workdir)}


def handler_times(workdir: Path) -> dict[str, float]:
    """p50 ms of each call's handler alone (bench_serve.py's measure), on this run's database."""
    from bench_serve import handler_alone

    os.environ.pop("FACADE_REDIS_URL", None)
    return {tool: handler_alone(workdir, tool, 200) * 1000 for tool in CALLS}


SIDE_NAMES = {"facade": "facade", "facade_off": "facade, threads free", "baseline": "MCPServer",
              "baseline_auto": "MCPServer, one CPU", "fastmcp": "FastMCP", "floor": "floor"}


def print_report(report: dict[str, Any], command: str) -> None:
    print(f"$ {command}")
    print(machine_line(report["reference_loop_ms"], **report["load_average"]))
    print(f"client={report['client']}")
    print(f"workers={report['workers']}  rounds={report['plan']['rounds']}  block={report['plan']['seconds']} s  "
          f"{report['fastmcp']}  handler alone p50: "
          + ", ".join(f"{k} {v:.2f} ms" for k, v in report["handler_p50_ms"].items()))
    head = (f"{'era':<11} {'call':<21} {'clients':>7} {'side':<20} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'CPU ms/call':>11} {'client CPU':>10} {'vs MCPServer':>12} {'p50/(floor+h)':>13} {'err':>4}")
    print(head)
    print("-" * len(head))
    by = {(r["era"], r["tool"], r["clients"], r["side"]): r for r in report["rows"]}
    order = list(SIDE_NAMES)
    for r in sorted(report["rows"], key=lambda r: (r["era"], r["tool"], r["clients"], order.index(r["side"]))):
        base = by.get((r["era"], r["tool"], r["clients"], "baseline"))
        floor = by.get((r["era"], r["tool"], r["clients"], "floor"))
        speed = f"{r['calls_per_s'] / base['calls_per_s']:.2f}x" if base and base["calls_per_s"] else "-"
        handler = report["handler_p50_ms"][r["tool"]]
        vs_floor = f"{r['p50_ms'] / (floor['p50_ms'] + handler):.2f}" if floor and r["side"] != "floor" else "-"
        print(f"{r['era']:<11} {r['tool']:<21} {r['clients']:>7} {SIDE_NAMES[r['side']]:<20} {r['calls_per_s']:>8.0f} "
              f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.1f} {r['cpu_ms_per_call']:>11.2f} {r['client_cpu_ms_per_call']:>10.2f} {speed:>12} {vs_floor:>13} {r['errors']:>4}")
    facade_rows = [r for r in report["rows"] if r["side"] == "facade"]
    loaded = [r for r in facade_rows if r["clients"] > 1]
    speedups = [r["calls_per_s"] / by[r["era"], r["tool"], r["clients"], "baseline"]["calls_per_s"] for r in loaded]
    print(f"\nfacade calls/s over MCPServer's at {' and '.join(str(c) for c in CLIENTS if c > 1)} clients: "
          f"{min(speedups):.2f}x..{max(speedups):.2f}x "
          f"(target >= {CALLS_TARGET}x: {'MET' if min(speedups) >= CALLS_TARGET else 'NOT MET'})")
    alone = [r["p50_ms"] / (by[r["era"], r["tool"], 1, "floor"]["p50_ms"] + report["handler_p50_ms"][r["tool"]])
             for r in facade_rows if r["clients"] == 1 and (r["era"], r["tool"], 1, "floor") in by]
    if alone:
        print(f"facade p50 over the floor's plus the handler's, one client: {min(alone):.2f}..{max(alone):.2f} "
              f"(target <= {FLOOR_TARGET}: {'MET' if max(alone) <= FLOOR_TARGET else 'NOT MET'})")


def main() -> int:
    if sys.argv[1:2] == ["floor"]:
        parser = argparse.ArgumentParser()
        parser.add_argument("floor")
        parser.add_argument("--answers", type=Path, required=True)
        parser.add_argument("--port", type=int, required=True)
        floor_args = parser.parse_args()
        serve_floor(floor_args.port, floor_args.answers)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="one round of short blocks, for CI (< 60 s)")
    parser.add_argument("--workers", type=int, default=1, help="facade serve --workers N (N > 1 needs --redis-url)")
    parser.add_argument("--redis-url", help="FACADE_REDIS_URL for the facade, e.g. redis://127.0.0.1:6379/9")
    parser.add_argument("--fastmcp-python", help="a Python with fastmcp and this repository installed")
    parser.add_argument("--client", choices=CLIENT_KINDS, default="lean",
                        help="lean: scripts/loadgen.py in a process of its own (default); httpx: httpx2 clients in "
                             "this process, what a Python MCP client costs")
    parser.add_argument("--affinity", action="store_true",
                        help="also the facade with FACADE_CPU_AFFINITY=off and MCPServer pinned as the facade pins "
                             "itself (facade/affinity.py): what the CPU policy alone is worth, on each side")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    if args.workers > 1 and not args.redis_url:
        parser.error("--workers > 1 shares its state through Redis: give --redis-url redis://127.0.0.1:6379/<db>")
    plan = PLANS["short" if args.short else "full"]
    report = run(plan, args.workers, args.redis_url, args.fastmcp_python, args.short, args.client, args.affinity)
    return delivered(report, print_report, "python scripts/bench_throughput.py " + " ".join(sys.argv[1:]), args.json)


if __name__ == "__main__":
    sys.exit(main())

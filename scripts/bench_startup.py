"""The start-up benchmark: how long `facade serve` takes to be healthy and `facade stdio` to answer
`initialize`, beside the official SDK's MCPServer starting with the same tools in the same run.

Each start is a new process timed from its launch: `facade serve` until `/healthz` answers, the
baseline (scripts/benchkit.py's MCPServer in uvicorn: the same domains imported, the same tools
registered) until `/mcp` answers; over stdio, from the launch with `initialize` already written to
stdin until its answer is read; beside the wall time, the CPU seconds the server process had
used by then (/proc), which a busy machine sways less. Two data folders: a fresh one (the facade migrates and seeds it on
this start) and a warm one (migrated and seeded by an earlier, uncounted start). Facade and
baseline alternate start by start, their order swapped every round, so a busy machine hurts both
alike; only the ratios of one run count. After each timed start the server is asked for its tools
and the benchmark fails on a wrong answer (an error, a missing tool), never on a figure.

A third side, started in the same rounds, is the floor: the SDK's `MCPServer` with no tools, no
domains and no database (scripts/benchkit.py `serve_empty`), what starting any server on this SDK
and HTTP stack takes on the machine. The goals are seconds, and a machine on which the empty
server alone takes most of them shows it here; "facade - empty" is what the facade adds to it.

    python scripts/bench_startup.py            # full: 5 rounds, ~6 minutes on a busy 2-core machine
    python scripts/bench_startup.py --short    # CI: one round
    python scripts/bench_startup.py --before /tmp/old   # also the facade of another checkout, alternating
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import (  # noqa: E402
    DEV,
    REPO,
    INITIALIZE,
    INITIALIZED,
    SDK_SERVERS,
    LoopbackServer,
    facade_server,
    fresh_workdir,
    jsonrpc,
    legacy_body,
    machine_line,
    modern_body,
    modern_headers,
    reference_loop_ms,
    sdk_server,
    workdir_env,
)

RATIO_TARGET = 2.0
# Issue 17's goals, wall seconds at 449 capabilities: healthy warm and fresh, initialize answered.
GOALS = {"serve warm": 2.0, "serve first": 4.0, "stdio warm": 2.0, "stdio first": 2.0}
STDIO_AGENT = "atlas"
SDK_SIDES = tuple(SDK_SERVERS)  # the SDK's own servers (scripts/benchkit.py): no agents, no /healthz
SIDES = ("facade", *SDK_SIDES)
# `--before DIR`: a fourth side, the facade imported from another checkout (`git worktree add DIR
# REV`), started the same way in the same rounds: a change's before/after on one machine.
BEFORE: dict[str, str] = {}
SCENARIOS = ("serve first", "serve warm", "stdio first", "stdio warm")
TIMEOUT = 300.0


@dataclass
class Start:
    seconds: float
    cpu: float  # CPU seconds the server process had used by then (less swayed by a busy machine)
    tools: int  # what the started server then listed
    problem: str | None = None


@dataclass
class Samples:
    starts: list[Start] = field(default_factory=list)

    @property
    def seconds(self) -> list[float]:
        return [s.seconds for s in self.starts]

    @property
    def cpu(self) -> list[float]:
        return [s.cpu for s in self.starts]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a running process and of the children it has waited for
    (Linux /proc): a fresh `facade serve` derives its announced tools in a child
    (facade/serving/prebuild.py), whose CPU counts as the server's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class StdioServer:
    """A stdio MCP server subprocess, its stderr in the work folder; one JSON-RPC line each way."""

    def __init__(self, workdir: Path, argv: list[str], name: str, env: dict[str, str]) -> None:
        self.log_path = workdir / f"{name}-stdio.log"
        self._log = open(self.log_path, "ab")
        env = {**os.environ, **workdir_env(workdir), **env}
        self.process = subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log)
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # end of stream

    def send(self, message: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(message + b"\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"no answer in {timeout}s; stderr in {self.log_path}") from None
        if not line:
            raise RuntimeError(f"exited with {self.process.wait()} before answering; stderr in {self.log_path}:\n"
                               f"{self.log_path.read_text(errors='replace')[-2000:]}")
        return json.loads(line)

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()  # end of input: the server's run loop returns
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


def side_env(side: str) -> dict[str, str]:
    return {"PYTHONPATH": BEFORE["path"]} if side == "before" else {}


def stdio_argv(side: str) -> list[str]:
    if side not in SDK_SIDES:
        return [sys.executable, "-m", "facade.cli", "stdio", "--agent", STDIO_AGENT]
    return [sys.executable, str(Path(__file__).resolve().parent / "benchkit.py"), side, "--stdio"]


def start_stdio(side: str, workdir: Path) -> Start:
    started = time.perf_counter()
    server = StdioServer(workdir, stdio_argv(side), side, side_env(side))
    try:
        server.send(INITIALIZE)
        answer = server.receive()
        seconds, cpu = time.perf_counter() - started, cpu_seconds(server.process.pid)
        if "result" not in answer or "serverInfo" not in answer["result"]:
            return Start(seconds, cpu, 0, f"initialize: {json.dumps(answer)[:300]}")
        server.send(INITIALIZED)
        server.send(legacy_body("tools/list", {}, 1))
        listed = server.receive()
        if "result" not in listed:
            return Start(seconds, cpu, 0, f"tools/list: {json.dumps(listed)[:300]}")
        return Start(seconds, cpu, len(listed["result"]["tools"]))
    finally:
        server.stop()


def start_http(side: str, workdir: Path) -> Start:
    make = functools.partial(sdk_server, kind=side) if side in SDK_SIDES else facade_server
    started = time.perf_counter()
    server = make(workdir, side_env(side)).launch()
    try:
        server.wait(TIMEOUT)
        seconds, cpu = time.perf_counter() - started, cpu_seconds(server.pid)
        return Start(seconds, cpu, *_listed_http(server, side))
    finally:
        server.stop()


def _listed_http(server: LoopbackServer, side: str) -> tuple[int, str | None]:
    """The number of tools a runtime caller lists (the whole catalogue), and what is wrong."""
    auth = {"Authorization": f"Bearer {DEV['runtime']}"} if side not in SDK_SIDES else {}
    with httpx2.Client(timeout=120) as client:
        if side not in SDK_SIDES:
            health = client.get(f"{server.base}/healthz")
            if health.status_code != 200 or health.json().get("status") != "ok":
                return 0, f"/healthz: HTTP {health.status_code} {health.text[:200]}"
        response = client.post(server.url, content=modern_body("tools/list", {}), headers={**modern_headers("tools/list"), **auth})
        message = jsonrpc(response)
        if response.status_code != 200 or "result" not in message:
            return 0, f"tools/list: HTTP {response.status_code} {json.dumps(message)[:200]}"
        return len(message["result"]["tools"]), None


def start(scenario: str, side: str, warm: Path) -> Start:
    """One start of `side` in `scenario`, on `warm` (the side's warm folder) or a fresh one."""
    transport, _, folder = scenario.partition(" ")
    workdir = warm if folder == "warm" else fresh_workdir(f"bench-startup-{side}-")
    try:
        return (start_http if transport == "serve" else start_stdio)(side, workdir)
    finally:
        if workdir != warm:
            shutil.rmtree(workdir, ignore_errors=True)


def run(rounds: int) -> dict[str, Any]:
    load_before = os.getloadavg()
    reference_ms = reference_loop_ms()
    shared = fresh_workdir("bench-startup-warm-")
    # The facade and the SDK's servers share a warm folder (neither SDK side keeps anything there). A facade
    # of another checkout has one of its own: its announced tools are kept under the fingerprint
    # of its own files (facade/catalogue/announced.py), and one file for both had every warm
    # start of each derive them again.
    warm = {side: shared for side in SIDES} | ({"before": fresh_workdir("bench-startup-warm-before-")} if BEFORE else {})
    sides = tuple(warm)
    # Uncounted: migrates and seeds the warm folders, and leaves every side's bytecode compiled.
    for side in sides:
        start("serve warm", side, warm[side])
    samples = {(scenario, side): Samples() for scenario in SCENARIOS for side in sides}
    for round_no in range(rounds):
        for scenario in SCENARIOS:
            for side in sides if round_no % 2 == 0 else sides[::-1]:
                samples[scenario, side].starts.append(start(scenario, side, warm[side]))
    for folder in set(warm.values()):
        shutil.rmtree(folder, ignore_errors=True)
    rows = []
    for scenario in SCENARIOS:
        f, b, e = samples[scenario, "facade"], samples[scenario, "baseline"], samples[scenario, "empty"]
        rows.append({
            "scenario": scenario,
            "facade_s": f.seconds, "baseline_s": b.seconds,
            "facade_median_s": statistics.median(f.seconds), "baseline_median_s": statistics.median(b.seconds),
            "ratio": statistics.median(f.seconds) / statistics.median(b.seconds),
            "facade_cpu_median_s": statistics.median(f.cpu), "baseline_cpu_median_s": statistics.median(b.cpu),
            "cpu_ratio": statistics.median(f.cpu) / statistics.median(b.cpu),
            "facade_tools": sorted({s.tools for s in f.starts}), "baseline_tools": sorted({s.tools for s in b.starts}),
            "empty_s": e.seconds, "empty_median_s": statistics.median(e.seconds), "empty_cpu_median_s": statistics.median(e.cpu),
            "empty_tools": sorted({s.tools for s in e.starts}),
        })
        if BEFORE:
            before = samples[scenario, "before"]
            rows[-1] |= {
                "before_median_s": statistics.median(before.seconds), "before_cpu_median_s": statistics.median(before.cpu),
                "before_tools": sorted({s.tools for s in before.starts}),
            }
    problems = [f"{scenario} {side}: {s.problem}" for (scenario, side), m in samples.items() for s in m.starts if s.problem]
    problems += _wrong_counts(rows)
    return {"rounds": rounds, "reference_loop_ms": (reference_ms, reference_loop_ms()), "load_before": load_before, "load_after": os.getloadavg(), "rows": rows, "problems": problems}


def _wrong_counts(rows: list[dict[str, Any]]) -> list[str]:
    """Every HTTP start of the facade (either checkout's) and the baseline lists the same whole
    catalogue; every stdio facade start lists the same (the agent's view) and the stdio baseline
    the whole catalogue; every start of the empty server lists none."""
    def facades(r: dict[str, Any]) -> list[int]:
        return [*r["facade_tools"], *r.get("before_tools", [])]

    whole = {n for r in rows for n in r["baseline_tools"]} | {n for r in rows if r["scenario"].startswith("serve") for n in facades(r)}
    problems = [f"the whole catalogue was listed as {sorted(whole)} tools across starts"] if len(whole) != 1 or 0 in whole else []
    agent = {n for r in rows if r["scenario"].startswith("stdio") for n in facades(r)}
    if len(agent) != 1 or 0 in agent:
        problems.append(f"facade stdio as {STDIO_AGENT} listed {sorted(agent)} tools across starts")
    empty = {n for r in rows for n in r["empty_tools"]}
    if empty != {0}:
        problems.append(f"the empty MCPServer listed {sorted(empty)} tools across starts")
    return problems


# In a child process of its own, started warm (bytecode compiled): how long importing the server
# takes, then discovery domain by domain (a library two domains share counts for the first).
PHASES = r"""
import importlib, json, pkgutil, time
def now():
    return time.perf_counter(), time.process_time()
t0 = now()
import facade.serving.service, facade.web.app
t1 = now()
import domains
rows = []
for info in sorted(pkgutil.iter_modules(domains.__path__), key=lambda i: i.name):
    if info.name.startswith("_"):
        continue
    a = now()
    module = importlib.import_module(f"domains.{info.name}")
    b = now()
    rows.append({"domain": info.name, "capabilities": len(module.domain.capabilities), "wall_s": b[0] - a[0], "cpu_s": b[1] - a[1]})
a = now()
from facade.catalogue.discovery import discover
registry = discover()
b = now()
print(json.dumps({"import_wall_s": t1[0] - t0[0], "import_cpu_s": t1[1] - t0[1], "domains": rows,
                  "registry_wall_s": b[0] - a[0], "registry_cpu_s": b[1] - a[1], "capabilities": len(registry)}))
"""


def phases() -> dict[str, Any]:
    """Import and discovery, timed inside one warm process; and the packages that weigh most in
    `python -X importtime` of the same imports (self time, summed by top-level package)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-c", PHASES], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    timed = json.loads(out.stdout.strip().splitlines()[-1])
    trace = subprocess.run([sys.executable, "-X", "importtime", "-c", "import facade.serving.service, facade.web.app\n"
                            "from facade.catalogue.discovery import discover\ndiscover()"],
                           capture_output=True, text=True, env=env, cwd=REPO, check=True).stderr
    weights: dict[str, int] = {}
    for line in trace.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line.removeprefix("import time:").split("|")
            parts = name.strip().split(".")
            package = ".".join(parts[:2]) if parts[0] in ("facade", "domains") else parts[0]
            weights[package] = weights.get(package, 0) + int(own)
    timed["importtime_top"] = sorted(weights.items(), key=lambda kv: -kv[1])[:12]
    return timed


def print_phases(p: dict[str, Any]) -> None:
    print(f"\nimport facade.serving.service + facade.web.app: wall {p['import_wall_s']:.2f} s, cpu {p['import_cpu_s']:.2f} s")
    print(f"discovery, domain by domain ({p['capabilities']} capabilities; registry built after: "
          f"wall {p['registry_wall_s']:.2f} s, cpu {p['registry_cpu_s']:.2f} s):")
    for r in sorted(p["domains"], key=lambda r: -r["cpu_s"]):
        print(f"  {r['domain']:<12} {r['capabilities']:>4} capabilities  wall {r['wall_s']:.3f} s  cpu {r['cpu_s']:.3f} s")
    total = sum(r["cpu_s"] for r in p["domains"])
    print(f"  {'all':<12} {sum(r['capabilities'] for r in p['domains']):>4} capabilities  wall "
          f"{sum(r['wall_s'] for r in p['domains']):.3f} s  cpu {total:.3f} s")
    print("heaviest packages in -X importtime (self time, ms; the tracing inflates it):",
          ", ".join(f"{name} {us / 1000:.0f}" for name, us in p["importtime_top"]))


def print_report(report: dict[str, Any], command: str) -> None:
    print(f"$ {command}")
    print(machine_line(report["reference_loop_ms"], before=report["load_before"], after=report["load_after"]))
    print(f"rounds={report['rounds']}  medians; cpu: CPU seconds the server had used when it answered")
    print()
    head = (f"{'scenario':<12} {'facade s':>9} {'baseline s':>11} {'f/b':>6} {'facade cpu':>11} {'baseline cpu':>13} {'f/b':>6} "
            f"{'empty s':>8} {'f-e s':>6} {'tools f/b':>10}  wall s of each start (facade | baseline | empty)")
    print(head)
    print("-" * (len(head) + 30))
    for r in report["rows"]:
        tools = f"{','.join(map(str, r['facade_tools']))}/{','.join(map(str, r['baseline_tools']))}"
        runs = " | ".join(" ".join(f"{x:.1f}" for x in r[f"{side}_s"]) for side in SIDES)
        print(f"{r['scenario']:<12} {r['facade_median_s']:>9.2f} {r['baseline_median_s']:>11.2f} {r['ratio']:>6.2f} "
              f"{r['facade_cpu_median_s']:>11.2f} {r['baseline_cpu_median_s']:>13.2f} {r['cpu_ratio']:>6.2f} "
              f"{r['empty_median_s']:>8.2f} {r['facade_median_s'] - r['empty_median_s']:>6.2f} {tools:>10}  {runs}")
    print("empty: the SDK's MCPServer with no tools, domains or database (the stack's own start); f-e: the facade's seconds over it")
    print()
    for r in report["rows"]:
        verdict = "MET" if r["ratio"] <= RATIO_TARGET else "NOT MET"
        goal = GOALS[r["scenario"]]
        met = "MET" if r["facade_median_s"] <= goal else "NOT MET"
        print(f"{r['scenario']:<12} target facade/baseline <= {RATIO_TARGET}: {verdict} (wall {r['ratio']:.2f}, cpu {r['cpu_ratio']:.2f}); "
              f"facade <= {goal:g} s: {met} (wall {r['facade_median_s']:.2f} s, cpu {r['facade_cpu_median_s']:.2f} s; "
              f"the empty MCPServer {r['empty_median_s']:.2f} s, cpu {r['empty_cpu_median_s']:.2f} s)")
    if BEFORE:
        print(f"\nthe facade now against the facade of {BEFORE['path']}, the same rounds (medians):")
        for r in report["rows"]:
            print(f"{r['scenario']:<12} wall {r['before_median_s']:.2f} -> {r['facade_median_s']:.2f} s "
                  f"({r['facade_median_s'] / r['before_median_s']:.2f}x), cpu {r['before_cpu_median_s']:.2f} -> "
                  f"{r['facade_cpu_median_s']:.2f} s ({r['facade_cpu_median_s'] / r['before_cpu_median_s']:.2f}x)")
    if "phases" in report:
        print_phases(report["phases"])
    if report["problems"]:
        print("\nwrong answers:", *report["problems"], sep="\n  ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="one round, for CI")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the full run")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--before", type=Path, help="also start the facade of this checkout (e.g. a `git worktree` of an earlier commit)")
    args = parser.parse_args()
    if args.before:
        BEFORE["path"] = str(args.before.resolve())
    # A deployment writes bytecode: without it every "warm" start would compile every module again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    report = run(1 if args.short else args.rounds)
    report["phases"] = phases()
    command = "python scripts/bench_startup.py" + (" --short" if args.short else f" --rounds {args.rounds}")
    print_report(report, command + (f" --before {args.before}" if args.before else ""))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())

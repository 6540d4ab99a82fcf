"""The serving benchmark: this facade against the official SDK's MCPServer, over loopback.

Both servers run as subprocesses on the same freshly migrated and seeded SQLite database:
`facade serve` (the caller presents the runtime token, so `tools/list` is the whole catalogue and
every call carries an agent's identity, which the facade validates and enforces), and
scripts/baseline.py's MCPServer (the same capabilities, written the way a real deployment wrote
them, running the same handlers) mounted in uvicorn. Requests are timed with a plain HTTP client
from the first byte sent to the last byte read, so no SDK client parsing hides the server; each
response is checked for success after its timer stops.

Both protocol eras: 2025-11-25 (a session opened with initialize, then requests in it) and
2026-07-28 (self-contained POSTs with the routing headers). Facade and baseline blocks alternate
round by round, so a busy machine hurts both sides alike; only ratios within one run count.

    python scripts/bench_serve.py            # full: ~4 minutes on a busy 2-core machine
    python scripts/bench_serve.py --short    # CI: a few seconds
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

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
    facade_server,
    failure,
    fresh_workdir,
    jsonrpc,
    legacy_body,
    legacy_open,
    legacy_open_async,
    modern_body,
    modern_headers,
    percentile,
    workdir_env,
)

AGENT = "atlas"  # sees projects and files; the identity every call carries
CALLS = {
    "projects.project_get": {"project_id": 1},
    "files.stat": {"path": "/"},
}
LIST_SPEEDUP_TARGET = 5.0
CALL_OVERHEAD_TARGET = 1.2


@dataclass
class Plan:
    rounds: int
    list_per_round: int
    call_per_round: int
    concurrency: int
    list_concurrent: int
    call_concurrent: int


PLANS = {
    "short": Plan(rounds=2, list_per_round=5, call_per_round=20, concurrency=4, list_concurrent=8, call_concurrent=40),
    "full": Plan(rounds=4, list_per_round=20, call_per_round=100, concurrency=8, list_concurrent=40, call_concurrent=400),
}


@dataclass
class Side:
    """One server as the benchmark talks to it."""

    served: LoopbackServer
    auth: dict[str, str]  # transport headers: the facade gets the runtime bearer, MCPServer nothing

    @property
    def name(self) -> str:
        return self.served.name

    def arguments(self, tool: str) -> dict[str, Any]:
        identity = {"auth_token": DEV[AGENT], "conversation_id": "bench-serve"}
        if self.name == "baseline":  # MCPServer's signature: the model as `args`, identity beside it
            return {"args": CALLS[tool], **identity}
        return {**CALLS[tool], **identity}

    def request(self, era: str, op: str, session: dict[str, str] | None) -> tuple[bytes, dict[str, str]]:
        method, _, tool = op.partition(" ")
        params = {"name": tool, "arguments": self.arguments(tool)} if tool else {}
        if era == MODERN:
            return modern_body(method, params), {**modern_headers(method, tool or None), **self.auth}
        assert session is not None
        return legacy_body(method, params), session


@dataclass
class Measure:
    latencies: list[float] = field(default_factory=list)  # seconds
    bytes: int = 0
    concurrent_rps: float = 0.0
    errors: list[str] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        ms = [x * 1000 for x in self.latencies]
        return {
            "n": len(ms),
            "bytes": self.bytes,
            "p50_ms": percentile(ms, 50),
            "p99_ms": percentile(ms, 99),
            "seq_rps": len(ms) / sum(self.latencies) if ms else 0.0,
            "conc_rps": self.concurrent_rps,
            "errors": len(self.errors),
        }


def sequential(client: httpx2.Client, side: Side, era: str, op: str, session: dict[str, str] | None, n: int, into: Measure) -> None:
    body, headers = side.request(era, op, session)
    responses = []
    for _ in range(n):
        started = time.perf_counter()
        response = client.post(side.served.url, content=body, headers=headers)
        response.read()
        into.latencies.append(time.perf_counter() - started)
        responses.append(response)
    for response in responses:  # checked after the timers stopped
        if (why := failure(response)) is not None:
            into.errors.append(why)
    into.bytes = len(responses[-1].content)


async def concurrent(side: Side, era: str, op: str, workers: int, total: int) -> tuple[float, list[str]]:
    """`total` requests spread over `workers` connections (a session each in 2025-11-25)."""
    errors: list[str] = []
    limits = httpx2.Limits(max_connections=workers, max_keepalive_connections=workers)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as client:
        sessions = [await legacy_open_async(client, side.served.url, side.auth) if era == LEGACY else None for _ in range(workers)]
        left = total

        async def worker(session: dict[str, str] | None) -> None:
            nonlocal left
            body, headers = side.request(era, op, session)
            while left > 0:
                left -= 1
                response = await client.post(side.served.url, content=body, headers=headers)
                if (why := failure(response)) is not None:
                    errors.append(why)

        started = time.perf_counter()
        await asyncio.gather(*(worker(s) for s in sessions))
        elapsed = time.perf_counter() - started
        for session in sessions:
            if session is not None:
                await client.delete(side.served.url, headers=session)
    return total / elapsed, errors


def handler_alone(workdir: Path, tool: str, n: int) -> float:
    """p50 seconds of the call alone (baseline.run_call: handler, commit, result) on the same
    database, in this process: the work both servers must do, so that what is left of a call's
    latency is each server's overhead."""
    import os

    os.environ.update(workdir_env(workdir))
    from baseline import run_call

    from facade.kit.capability import CallContext
    from facade.serving.service import build_service

    service = build_service()
    cap = service.registry.get(tool)
    parsed = cap.parsed_model.model_validate({**CALLS[tool], "auth_token": "x", "conversation_id": "x"})
    times = []
    for _ in range(n):
        started = time.perf_counter()
        run_call(cap, parsed, CallContext(AGENT, "bench-serve", service.sessions))
        times.append(time.perf_counter() - started)
    service.engine.dispose()
    return percentile(times, 50)


def run(plan: Plan) -> dict[str, Any]:
    workdir = fresh_workdir("bench-serve-")
    facade = facade_server(workdir).launch()  # migrates and seeds the database
    baseline = baseline_server(workdir).launch()  # opens it only on the first call
    facade.wait()
    baseline.wait()
    sides = [Side(facade, {"Authorization": f"Bearer {DEV['runtime']}"}), Side(baseline, {})]
    ops = ["tools/list", *(f"tools/call {tool}" for tool in CALLS)]
    results: dict[tuple[str, str, str], Measure] = {}
    try:
        with httpx2.Client(timeout=120) as client:
            sessions = {(s.name, era): legacy_open(client, s.served.url, s.auth) if era == LEGACY else None for s in sides for era in ERAS}
            for era in ERAS:
                for op in ops:
                    per_round = plan.list_per_round if op == "tools/list" else plan.call_per_round
                    for side in sides:  # warm-up, not counted
                        sequential(client, side, era, op, sessions[side.name, era], 3, Measure())
                    for round_no in range(plan.rounds):
                        order = sides if round_no % 2 == 0 else sides[::-1]
                        for side in order:
                            m = results.setdefault((era, op, side.name), Measure())
                            sequential(client, side, era, op, sessions[side.name, era], per_round, m)
                    total = plan.list_concurrent if op == "tools/list" else plan.call_concurrent
                    for side in sides:
                        rps, errors = asyncio.run(concurrent(side, era, op, plan.concurrency, total))
                        results[era, op, side.name].concurrent_rps = rps
                        results[era, op, side.name].errors.extend(errors)
            listed = {s.name: len(jsonrpc(client.post(s.served.url, content=modern_body("tools/list", {}),
                                                      headers={**modern_headers("tools/list"), **s.auth}))["result"]["tools"]) for s in sides}
    finally:
        facade.stop()
        baseline.stop()
    handler = {tool: handler_alone(workdir, tool, 200) for tool in CALLS}
    rows = []
    for (era, op, name), m in results.items():
        rows.append({"era": era, "op": op, "side": name, **m.row()})
    return {"plan": plan.__dict__, "tools": listed, "handler_p50_ms": {k: v * 1000 for k, v in handler.items()},
            "rows": rows, "first_errors": [e for m in results.values() for e in m.errors][:5], "workdir": str(workdir)}


def verdicts(report: dict[str, Any]) -> list[dict[str, Any]]:
    by = {(r["era"], r["op"], r["side"]): r for r in report["rows"]}
    out = []
    for era, op, _ in {(r["era"], r["op"], 0) for r in report["rows"]}:
        f, b = by[era, op, "facade"], by[era, op, "baseline"]
        v: dict[str, Any] = {
            "era": era, "op": op,
            "p50_ratio": f["p50_ms"] / b["p50_ms"], "p99_ratio": f["p99_ms"] / b["p99_ms"],
            "rps_ratio": f["conc_rps"] / b["conc_rps"],
        }
        if op == "tools/list":
            v["target"] = f"baseline/facade p50 >= {LIST_SPEEDUP_TARGET}"
            v["speedup_p50"] = b["p50_ms"] / f["p50_ms"]
            v["speedup_rps"] = f["conc_rps"] / b["conc_rps"]
            v["met"] = v["speedup_p50"] >= LIST_SPEEDUP_TARGET
        else:
            h = report["handler_p50_ms"][op.split(" ", 1)[1]]
            v["overhead_ratio"] = (f["p50_ms"] - h) / (b["p50_ms"] - h)
            v["target"] = f"facade/baseline p50 <= {CALL_OVERHEAD_TARGET}"
            v["met"] = v["p50_ratio"] <= CALL_OVERHEAD_TARGET
        out.append(v)
    return sorted(out, key=lambda v: (v["op"], v["era"]))


def print_report(report: dict[str, Any], command: str) -> None:
    print(f"$ {command}")
    plan = report["plan"]
    print(f"tools listed: {report['tools']}  rounds={plan['rounds']}  concurrency={plan['concurrency']}  "
          f"handler alone p50 (in-process): " + ", ".join(f"{k} {v:.2f} ms" for k, v in report["handler_p50_ms"].items()))
    print()
    head = f"{'era':<11} {'op':<32} {'side':<9} {'n':>5} {'bytes':>8} {'p50 ms':>8} {'p99 ms':>8} {'seq r/s':>8} {'conc r/s':>9} {'err':>4}"
    print(head)
    print("-" * len(head))
    for r in sorted(report["rows"], key=lambda r: (r["op"], r["era"], r["side"] != "facade")):
        print(f"{r['era']:<11} {r['op']:<32} {r['side']:<9} {r['n']:>5} {r['bytes']:>8} {r['p50_ms']:>8.2f} "
              f"{r['p99_ms']:>8.2f} {r['seq_rps']:>8.1f} {r['conc_rps']:>9.1f} {r['errors']:>4}")
    print()
    head = f"{'era':<11} {'op':<32} {'p50 f/b':>8} {'p99 f/b':>8} {'r/s f/b':>8}  target"
    print(head)
    print("-" * (len(head) + 40))
    for v in verdicts(report):
        extra = (f"speedup p50 {v['speedup_p50']:.2f}x, throughput {v['speedup_rps']:.2f}x" if "speedup_p50" in v
                 else f"overhead (p50 minus handler) f/b {v['overhead_ratio']:.2f}")
        print(f"{v['era']:<11} {v['op']:<32} {v['p50_ratio']:>8.2f} {v['p99_ratio']:>8.2f} {v['rps_ratio']:>8.2f}  "
              f"{v['target']}: {'MET' if v['met'] else 'NOT MET'} ({extra})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="few iterations, for CI")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    report = run(PLANS["short" if args.short else "full"])
    report["verdicts"] = verdicts(report)
    return delivered(report, print_report, "python scripts/bench_serve.py" + (" --short" if args.short else ""), args.json)


if __name__ == "__main__":
    sys.exit(main())

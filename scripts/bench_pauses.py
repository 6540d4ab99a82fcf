"""The pause benchmark: the longest the event loop of `facade serve --demo` stopped while serving
a listing + call load, read from the server's own lag probe and collection timings (/metrics:
facade_event_loop_lag_*, facade_gc_pause_seconds; facade/serving/pauses.py).

A fresh start on a warm data folder, then the first request after it (timed alone: the issue
found a 414 ms collection inside it), then WORKERS clients for SECONDS, each looping over a
runtime `tools/list` (the whole catalogue), an agent's `tools/list` and two `tools/call`s, in the
2026-07-28 era. The benchmark fails on a wrong answer, never on a figure.

    python scripts/bench_pauses.py                       # 449 capabilities, 20 s
    python scripts/bench_pauses.py --synthetic 10000     # plus scripts/synthetic_domain.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import DEV, failure, facade_server, fresh_workdir, machine_line, modern_body, modern_headers, percentile, reference_loop_ms  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent
AGENT = "atlas"
CALLS = {"projects.project_get": {"project_id": 1}, "files.stat": {"path": "/"}}
LAG_GOAL = {449: 0.020, 10_000: 0.050}


def synthetic_env(count: int) -> dict[str, str]:
    """The environment that loads scripts/synthetic_domain.py with `count` capabilities."""
    if not count:
        return {}
    return {"FACADE_DOMAINS": "synthetic_domain", "SYNTHETIC_CAPABILITIES": str(count),
            "PYTHONPATH": os.pathsep.join([str(SCRIPTS), str(SCRIPTS.parent)])}


def requests() -> list[tuple[bytes, dict[str, str]]]:
    runtime = {"Authorization": f"Bearer {DEV['runtime']}"}
    agent = {"Authorization": f"Bearer {DEV[AGENT]}"}
    out = [(modern_body("tools/list", {}), {**modern_headers("tools/list"), **runtime}),
           (modern_body("tools/list", {}), {**modern_headers("tools/list"), **agent})]
    for tool, args in CALLS.items():
        params = {"name": tool, "arguments": {**args, "auth_token": DEV[AGENT], "conversation_id": "bench-pauses"}}
        out.append((modern_body("tools/call", params), {**modern_headers("tools/call", tool), **agent}))
    return out


async def load(url: str, workers: int, seconds: float) -> tuple[list[float], list[str]]:
    plan = requests()
    latencies: list[float] = []
    problems: list[str] = []
    deadline = time.monotonic() + seconds

    async def worker(client: httpx2.AsyncClient) -> None:
        i = 0
        while time.monotonic() < deadline:
            body, headers = plan[i % len(plan)]
            i += 1
            started = time.perf_counter()
            response = await client.post(url, content=body, headers=headers)
            latencies.append(time.perf_counter() - started)
            if (why := failure(response)) is not None:
                problems.append(why)

    async with httpx2.AsyncClient(timeout=120) as client:
        await asyncio.gather(*(worker(client) for _ in range(workers)))
    return latencies, problems


def scrape(base: str) -> dict[str, Any]:
    text = httpx2.get(f"{base}/metrics", headers={"Authorization": f"Bearer {DEV['operator']}"}, timeout=60).text
    value = lambda name: float(re.search(rf"^{name} ([0-9.e+-]+)$", text, re.M).group(1))  # noqa: E731
    gc_max: dict[str, float] = {}
    gc_count: dict[str, float] = {}
    for generation, count in re.findall(r'^facade_gc_pause_seconds_count\{generation="(\d)"\} ([0-9.e+]+)$', text, re.M):
        gc_count[generation] = float(count)
    # The largest bucket bound below which not every collection fell: the longest pause lies above it.
    for generation in gc_count:
        buckets = re.findall(rf'^facade_gc_pause_seconds_bucket\{{generation="{generation}",le="([0-9.e+inf]+)"\}} ([0-9.e+]+)$', text, re.M)
        below = [float(le) for le, n in buckets if le != "+Inf" and float(n) < gc_count[generation]]
        gc_max[generation] = max(below) if below else 0.0
    return {"lag_max_s": value("facade_event_loop_lag_max_seconds"), "lag_samples": value("facade_event_loop_lag_seconds_count"),
            "gc_count": gc_count, "gc_longest_above_s": gc_max}


def run(synthetic: int, workers: int, seconds: float) -> dict[str, Any]:
    reference_ms = reference_loop_ms()
    workdir = fresh_workdir("bench-pauses-")
    env = synthetic_env(synthetic)
    try:
        facade_server(workdir, env).start().stop()  # uncounted: migrates and seeds the folder
        server = facade_server(workdir, env).start()
        try:
            body, headers = requests()[0]
            started = time.perf_counter()
            first = httpx2.post(server.url, content=body, headers=headers, timeout=120)
            first_s = time.perf_counter() - started
            problems = [f"first tools/list: {why}"] if (why := failure(first)) else []
            tools = len(json.loads(first.text)["result"]["tools"]) if not problems else 0
            client_cpu = time.process_time()
            latencies, more = asyncio.run(load(server.url, workers, seconds))
            client_cpu = time.process_time() - client_cpu
            metrics = scrape(server.base)
        finally:
            server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"reference_loop_ms": (reference_ms, reference_loop_ms()), "capabilities": tools, "workers": workers, "seconds": seconds, "first_request_s": first_s,
            "requests": len(latencies), "p50_s": percentile(latencies, 50), "p99_s": percentile(latencies, 99), "client_cpu_s": client_cpu,
            "max_s": max(latencies, default=float("nan")), **metrics, "problems": problems + sorted(set(more))[:10]}


def print_report(r: dict[str, Any], command: str) -> None:
    print(f"$ {command}")
    print(machine_line(r["reference_loop_ms"], now=os.getloadavg()))
    print(f"capabilities listed: {r['capabilities']}; {r['workers']} clients for {r['seconds']:.0f} s: {r['requests']} requests "
          f"(runtime tools/list, agent tools/list, 2 tools/call), p50 {r['p50_s'] * 1000:.1f} ms, p99 {r['p99_s'] * 1000:.1f} ms")
    # The clients share this process and its one event loop, which reads and checks every answer:
    # at 10,449 tools a runtime listing is 6.8 MB, and a busy client lengthens every latency.
    print(f"the clients' own CPU (this process): {r['client_cpu_s']:.1f} s in {r['seconds']:.0f} s "
          f"({r['client_cpu_s'] / r['seconds']:.0%} of one CPU; the latencies include their reading and checking)")
    print(f"first request after start (runtime tools/list): {r['first_request_s'] * 1000:.1f} ms")
    print(f"longest event-loop lag (probe every 50 ms, {r['lag_samples']:.0f} samples): {r['lag_max_s'] * 1000:.1f} ms")
    if not r["gc_count"]:
        print("  no garbage collection ran while serving")
    for generation, count in sorted(r["gc_count"].items()):
        print(f"  gc generation {generation}: {count:.0f} collections, the longest above {r['gc_longest_above_s'][generation] * 1000:.1f} ms")
    goal = LAG_GOAL[449] if r["capabilities"] < 5000 else LAG_GOAL[10_000]
    print(f"goal: longest lag <= {goal * 1000:.0f} ms: {'MET' if r['lag_max_s'] <= goal else 'NOT MET'}")
    if r["problems"]:
        print("\nwrong answers:", *r["problems"], sep="\n  ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic", type=int, default=0, help="capabilities of the synthetic plugin domain to add")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report = run(args.synthetic, args.workers, args.seconds)
    extra = f" --synthetic {args.synthetic}" if args.synthetic else ""
    print_report(report, f"python scripts/bench_pauses.py{extra} --workers {args.workers} --seconds {args.seconds:g}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())

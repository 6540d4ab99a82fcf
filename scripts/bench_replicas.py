"""Replicas on one machine behind a balancer: what their CPU placement is worth.

`facade serve` pins a lone server to one CPU (facade/affinity.py). Two replicas on one machine,
the second started once the first answered (a rolling start, two service units), landed on the
same CPU in 5 of 8 tries on 2 cores (2026-12-06), until each claimed a CPU of its own
(facade/cpu_claims.py; `--starts N` counts it again). This benchmark serves one workload through
replicas placed four ways, side by side in one run:

- `claimed`: two replicas with `auto`, as shipped, the second started once the first answers:
  it claims a CPU the first has not;
- `one CPU`: two replicas pinned to the same CPU (`FACADE_CPU_AFFINITY=<cpu>`), what the
  collision did;
- `free`: two replicas with `off`, every thread left to the scheduler;
- `alone`: one replica with `auto`, for scale.

Each side claims CPUs in a scope of its own (`FACADE_CPU_CLAIMS_SCOPE`), so sides and other
servers on the machine do not take each other's. Calls: 2026-07-28 `files.stat` and `projects.project_get` (self-contained
POSTs, which a balancer may send to any replica) as the agent `atlas`, from the lean generator
(scripts/loadgen.py), its connections dealt to the replicas in turn, as a layer-4 balancer deals
them. Every replica opens the one seeded SQLite database. Blocks alternate, their order reversed
every round, so a busy machine hurts every side alike; only ratios within one run count.

    python scripts/bench_replicas.py              # 2 rounds of 3 s blocks
    python scripts/bench_replicas.py --short      # 1 round of 0.5 s blocks
    python scripts/bench_replicas.py --starts 8   # 8 pairs started in turn, each way: how many share a CPU
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_throughput import CALLS, PLANS, Block, Plan, Side, facade_side  # noqa: E402
from benchkit import (  # noqa: E402
    MODERN,
    LoopbackServer,
    claims_scope,
    delivered,
    fresh_workdir,
    machine_line,
    pinned_cpu,
    reference_loop_ms,
)
from loadgen import run_block  # noqa: E402

CLIENTS = (16, 64)
SIDES = ("claimed", "one CPU", "free", "alone")


def placement(side: str, cpu: int) -> tuple[int, str]:
    """How many replicas a side runs, and their FACADE_CPU_AFFINITY."""
    return {"claimed": (2, "auto"), "one CPU": (2, str(cpu)), "free": (2, "off"), "alone": (1, "auto")}[side]


def start_side(workdir: Path, side: str, cpu: int) -> list[LoopbackServer]:
    """The side's replicas, each started once the one before it answers."""
    count, affinity = placement(side, cpu)
    slug = side.replace(" ", "_").lower()
    replicas = []
    for n in range(1, count + 1):
        server = facade_side(workdir, 1, None, affinity)
        server.name = f"replica_{slug}_{n}"
        server.env["FACADE_CPU_CLAIMS_SCOPE"] = claims_scope(workdir, slug)
        replicas.append(server.start())
    return replicas


def pinned_cpus(replicas: list[LoopbackServer]) -> list[int | None]:
    """The CPU each replica's log says it pinned, None for one that pinned none."""
    return [pinned_cpu(server.log()) for server in replicas]


def misplaced(cpus: dict[str, list[int | None]], cpu: int) -> list[str]:
    """The sides that did not land as their names say (their rows would be mislabelled)."""
    wrong = []
    if None in cpus["claimed"] or len(set(cpus["claimed"])) != 2:
        wrong.append(f"claimed: {cpus['claimed']}, not two CPUs")
    if cpus["one CPU"] != [cpu, cpu]:
        wrong.append(f"one CPU: {cpus['one CPU']}, not [{cpu}, {cpu}]")
    if cpus["free"] != [None, None]:
        wrong.append(f"free: {cpus['free']}, pinned")
    if cpus["alone"] == [None]:
        wrong.append("alone: not pinned")
    return wrong


def block(replicas: list[LoopbackServer], tool: str, clients: int, seconds: float) -> Block:
    """`clients` connections dealt to the replicas in turn, calling back to back for `seconds`;
    the CPU is every replica's."""
    sides = [Side(server, identity_in_arguments=False) for server in replicas]
    chosen = [sides[i % len(sides)] for i in range(clients)]
    requests = [side.wire(MODERN, tool, None) for side in chosen]
    generated, cpu = run_block("127.0.0.1", [side.served.port for side in chosen], requests, seconds,
                               lambda: sum(side.cpu_seconds() for side in sides))
    return Block(latencies=generated.latencies, errors=generated.error_count, first_errors=generated.errors,
                 elapsed=generated.elapsed, cpu=cpu, client_cpu=generated.cpu)


def run(plan: Plan) -> dict[str, Any]:
    load_before = os.getloadavg()
    reference_ms = reference_loop_ms()
    cpu = min(os.sched_getaffinity(0))
    workdir = fresh_workdir("bench-replicas-")
    started: dict[str, list[LoopbackServer]] = {}
    try:
        for side in SIDES:  # the first replica started migrates and seeds the database
            started[side] = start_side(workdir, side, cpu)
        results: dict[tuple[str, int, str], Block] = {}
        for round_no in range(plan.rounds):
            for tool in CALLS:
                for clients in CLIENTS:
                    order = SIDES if round_no % 2 == 0 else SIDES[::-1]
                    for side in order:
                        measured = block(started[side], tool, clients, plan.seconds)
                        results.setdefault((tool, clients, side), Block()).add(measured)
        cpus = {side: pinned_cpus(replicas) for side, replicas in started.items()}
    finally:
        for replicas in started.values():
            for server in replicas:
                server.stop()
    rows = [{"tool": tool, "clients": clients, "side": side, **b.row()} for (tool, clients, side), b in results.items()]
    first_errors = [e for b in results.values() for e in b.first_errors][:5]
    return {"plan": plan.__dict__, "pinned": cpus, "misplaced": misplaced(cpus, cpu), "rows": rows, "first_errors": first_errors,
            "load_average": {"before": load_before, "after": os.getloadavg()},
            "reference_loop_ms": (reference_ms, reference_loop_ms()), "workdir": str(workdir)}


STARTS = ("own scopes", "one scope")


def starts(tries: int) -> dict[str, Any]:
    """`tries` times each, alternating: two `auto` replicas, the second started once the first
    answers, with a claims scope each (so each pins the CPU it starts on, as before claims) and
    with one scope (as shipped); how often the two pinned one CPU."""
    workdir = fresh_workdir("bench-replicas-starts-")
    shared = {variant: 0 for variant in STARTS}
    for n in range(tries):
        for variant in STARTS if n % 2 == 0 else STARTS[::-1]:
            pair: list[LoopbackServer] = []
            try:
                for k in (1, 2):
                    server = facade_side(workdir, 1, None, "auto")
                    server.name = f"start_{n}_{variant.replace(' ', '_')}_{k}"
                    scope = f"{n}-{k}" if variant == "own scopes" else f"{n}"
                    server.env["FACADE_CPU_CLAIMS_SCOPE"] = claims_scope(workdir, scope)
                    pair.append(server.start())
                first, second = pinned_cpus(pair)
            finally:
                for server in pair:
                    server.stop()
            shared[variant] += first is not None and first == second
    return {"tries": tries, "one_cpu": shared, "workdir": str(workdir)}


def print_report(report: dict[str, Any], command: str) -> None:
    print(f"$ {command}")
    print(machine_line(report["reference_loop_ms"], **report["load_average"]))
    print(f"rounds={report['plan']['rounds']}  block={report['plan']['seconds']} s  era 2026-07-28  CPUs pinned: "
          + "; ".join(f"{side} {', '.join('free' if c is None else str(c) for c in cpus)}"
                      for side, cpus in report["pinned"].items()))
    head = (f"{'call':<21} {'clients':>7} {'side':<8} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/call':>11} "
            f"{'vs one CPU':>10} {'vs free':>8} {'vs alone':>8} {'err':>4}")
    print(head)
    print("-" * len(head))
    by = {(r["tool"], r["clients"], r["side"]): r for r in report["rows"]}

    def ratio(r: dict[str, Any], other: str) -> str:
        base = by.get((r["tool"], r["clients"], other))
        return f"{r['calls_per_s'] / base['calls_per_s']:.2f}x" if base and base["calls_per_s"] else "-"

    for r in sorted(report["rows"], key=lambda r: (r["tool"], r["clients"], SIDES.index(r["side"]))):
        print(f"{r['tool']:<21} {r['clients']:>7} {r['side']:<8} {r['calls_per_s']:>8.0f} {r['p50_ms']:>8.2f} "
              f"{r['p99_ms']:>8.1f} {r['cpu_ms_per_call']:>11.2f} {ratio(r, 'one CPU'):>10} {ratio(r, 'free'):>8} "
              f"{ratio(r, 'alone'):>8} {r['errors']:>4}")
    claimed = [r["calls_per_s"] / by[r["tool"], r["clients"], "one CPU"]["calls_per_s"]
               for r in report["rows"] if r["side"] == "claimed"]
    print(f"\ntwo claimed replicas over two on one CPU: {min(claimed):.2f}x..{max(claimed):.2f}x calls/s")
    if report["misplaced"]:
        print("WRONG: placed otherwise than the sides' names say, so their rows are not what they are labelled:",
              *report["misplaced"], sep="\n  ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="one round of short blocks")
    parser.add_argument("--starts", type=int, metavar="N",
                        help="instead: N pairs of replicas started in turn, each way; how many pinned one CPU")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        print("bench_replicas.py: nothing to measure with one CPU (placement changes nothing there)")
        return 0
    if args.starts:
        counted = starts(args.starts)
        print(f"$ python scripts/bench_replicas.py --starts {args.starts}")
        print(f"pairs of replicas started in turn that pinned one CPU, of {counted['tries']}: "
              + "; ".join(f"{variant} {n}" for variant, n in counted["one_cpu"].items())
              + " (own scopes: each pins where it starts, as before claims; one scope: as shipped)")
        if args.json:
            args.json.write_text(json.dumps(counted, indent=2))
        return 0
    report = run(PLANS["short" if args.short else "full"])
    failed = delivered(report, print_report, "python scripts/bench_replicas.py " + " ".join(sys.argv[1:]), args.json)
    return 1 if report["misplaced"] else failed  # rows under the wrong label are wrong answers too


if __name__ == "__main__":
    sys.exit(main())

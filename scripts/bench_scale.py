"""The scale benchmark: `facade serve --demo` with the bundled 449 capabilities and with the
synthetic plugin domain (scripts/synthetic_domain.py, through FACADE_DOMAINS) adding 2,000 and
10,000 more. For each size, on a data folder an uncounted start migrated and seeded:

- start-up: launch to a healthy `/healthz` (wall, and the server's CPU seconds by then);
- RSS once healthy, and KiB per capability beyond the 449 (the growth over the smallest size);
- the first runtime `tools/list` after start (the whole catalogue), then its steady p50 over 20,
  then the first in a 2025-11-25 session (whose array is not built at start);
- `facade check --demo` (the CI gate: every agent's view, budgets, lint, lock) on the same code.

It fails on a wrong answer (a listing that lacks capabilities), never on a figure.

    python scripts/bench_scale.py                 # 449 / 2,449 / 10,449
    python scripts/bench_scale.py --sizes 0 2000  # added synthetic capabilities per size
    python scripts/bench_scale.py --stages 4000   # where the KiB per capability are taken

`--stages N` measures, each in a fresh process, the RSS growth per capability of N synthetic
capabilities at the stages of a start: the plugin's input models alone (pydantic classes, no
facade), discovery (the registry: the models, each capability's declaration and the facade's
record of it), and the whole service with its announced tools (a warm data folder). What the
models cost is the plugin's, and a floor for any server that keeps its models. A first stage,
`unshared`, builds the same models with pydantic's own empty qualifier sets left in place
(facade/kit/field_memory.py undone): the baseline of what that sharing saves, in the same run,
beside the CPU each stage took to build, per capability.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_pauses import synthetic_env  # noqa: E402
from bench_startup import cpu_seconds  # noqa: E402
from benchkit import DEV, REPO, facade_server, fresh_workdir, jsonrpc, legacy_body, legacy_open, machine_line, modern_body, modern_headers, percentile, reference_loop_ms, workdir_env  # noqa: E402

GOALS = {"kib_per_capability": 15.0, "first_list_s": 0.050, "check_s": 15.0, "start_s_10k": 6.0}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


RUNTIME = {"Authorization": f"Bearer {DEV['runtime']}"}


def runtime_list(client: httpx2.Client, url: str, session: dict[str, str] | None = None) -> tuple[float, int]:
    """One runtime `tools/list`, timed: in 2026-07-28, or in the 2025-11-25 `session` given."""
    if session is None:
        body, headers = modern_body("tools/list", {}), {**modern_headers("tools/list"), **RUNTIME}
    else:
        body, headers = legacy_body("tools/list", {}), session
    started = time.perf_counter()
    response = client.post(url, content=body, headers=headers)
    seconds = time.perf_counter() - started
    message = jsonrpc(response)
    return seconds, len(message.get("result", {}).get("tools", []))


def measure(added: int) -> dict[str, Any]:
    workdir = fresh_workdir(f"bench-scale-{added}-")
    env = synthetic_env(added)
    try:
        facade_server(workdir, env).start(600).stop()  # uncounted: migrates, seeds, keeps the announced tools
        started = time.perf_counter()
        server = facade_server(workdir, env).launch()
        try:
            server.wait(600)
            start_s, start_cpu, rss = time.perf_counter() - started, cpu_seconds(server.pid), rss_kib(server.pid)
            with httpx2.Client(timeout=300) as client:
                first_s, tools = runtime_list(client, server.url)
                first_cpu = cpu_seconds(server.pid) - start_cpu
                steady = [runtime_list(client, server.url)[0] for _ in range(20)]
                # A 2025-11-25 client's first listing: that era's array is built by it, not at
                # start (facade/serving/prebuild.py, build_runtime_list).
                legacy_first_s, legacy_tools = runtime_list(client, server.url, legacy_open(client, server.url, RUNTIME))
        finally:
            server.stop()
        check_env = {**os.environ, **workdir_env(workdir), **env}
        check_env.pop("FACADE_SEED", None)
        lock = workdir / "catalogue.lock"
        shutil.copy(REPO / "catalogue.lock", lock)
        began, children = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        # --update-lock: the synthetic capabilities are accepted into this copy of the lock first.
        check = subprocess.run([sys.executable, "-m", "facade.cli", "check", "--demo", "--lock", str(lock), "--update-lock", "--json"],
                               cwd=workdir, env=check_env, capture_output=True, text=True)
        check_s = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        check_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
        check_ok = check.returncode == 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"added": added, "tools": tools, "start_s": start_s, "start_cpu_s": start_cpu, "rss_kib": rss, "first_list_s": first_s, "first_list_cpu_s": first_cpu,
            "legacy_first_list_s": legacy_first_s, "legacy_tools": legacy_tools,
            "steady_p50_s": percentile(steady, 50), "check_s": check_s, "check_cpu_s": check_cpu, "check_ok": check_ok,
            "check_tail": "" if check_ok else (check.stdout + check.stderr)[-600:]}


STAGES = ("unshared", "models", "discovery", "service")


def stage_rss(stage: str, count: int) -> tuple[int, float]:
    """In this process: KiB of RSS that `stage` with `count` synthetic capabilities adds, the
    collector off (as during start-up) and measured from after the imports, and the CPU seconds
    it took."""
    import gc

    from facade.kit import field_memory
    from facade.serving.service import build_service
    from facade.settings import Settings

    import synthetic_domain  # with SYNTHETIC_CAPABILITIES=1: one capability, the module's own

    gc.disable()
    before, cpu = rss_kib(os.getpid()), time.process_time()
    if stage in ("unshared", "models"):
        if stage == "unshared":  # the baseline: pydantic's own empty sets, one per field
            field_memory.share_empty_qualifiers = lambda model: None
        kept = [synthetic_domain.input_model(i) for i in range(count)]  # noqa: F841 - held for the reading
    elif stage == "discovery":
        from facade.catalogue.discovery import discover

        os.environ["SYNTHETIC_CAPABILITIES"] = str(count)
        sys.modules.pop("synthetic_domain")
        registry = discover(["synthetic_domain"])  # noqa: F841
    else:
        os.environ["SYNTHETIC_CAPABILITIES"] = str(count)
        sys.modules.pop("synthetic_domain")
        service = build_service(Settings())
        service.served.build()
    return rss_kib(os.getpid()) - before, time.process_time() - cpu


def stages(count: int) -> list[dict[str, Any]]:
    """Each stage with 1 and with `count` + 1 capabilities, each in a process of its own (the
    service's twice, on a data folder of its own, the first warming it); KiB and CPU µs per
    capability."""
    rows = []
    for stage in STAGES:
        grown, cpu = {}, {}
        for n in (1, count + 1):
            workdir = fresh_workdir(f"bench-scale-stage-{n}-")
            env = {**os.environ, **workdir_env(workdir), **synthetic_env(1)}
            env.pop("FACADE_SEED", None)
            argv = [sys.executable, str(Path(__file__).resolve()), "stage", stage, str(n)]
            try:
                for _ in range(2 if stage == "service" else 1):
                    done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True)
                    if done.returncode != 0:
                        raise RuntimeError(f"stage {stage} with {n} failed:\n{done.stderr[-2000:]}")
                kib, seconds = done.stdout.split()[-2:]
                grown[n], cpu[n] = int(kib), float(seconds)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
        rows.append({"stage": stage, "kib_per_capability": (grown[count + 1] - grown[1]) / count,
                     "cpu_us_per_capability": (cpu[count + 1] - cpu[1]) / count * 1e6})
    return rows


def run(sizes: list[int]) -> dict[str, Any]:
    reference_ms = reference_loop_ms()
    rows = [measure(n) for n in sizes]
    base = rows[0]
    for r in rows:
        grown = r["tools"] - base["tools"]
        r["kib_per_capability"] = (r["rss_kib"] - base["rss_kib"]) / grown if grown > 0 else None
    problems = [f"{r['added']} added: listed {r['tools']} tools" for r in rows if r["tools"] != rows[0]["tools"] - rows[0]["added"] + r["added"]]
    problems += [f"{r['added']} added: listed {r['legacy_tools']} tools in 2025-11-25" for r in rows if r["legacy_tools"] != r["tools"]]
    problems += [f"{r['added']} added: facade check failed: {r['check_tail']}" for r in rows if not r["check_ok"]]
    return {"rows": rows, "problems": problems, "load_after": os.getloadavg(), "reference_loop_ms": (reference_ms, reference_loop_ms())}


def print_report(report: dict[str, Any], command: str) -> None:
    print(f"$ {command}")
    print(machine_line(report["reference_loop_ms"], after=report["load_after"]))
    head = (f"{'capabilities':>12} {'healthy s':>10} {'cpu s':>7} {'RSS MiB':>8} {'KiB/cap':>8} {'first list ms':>14} {'cpu ms':>7} "
            f"{'p50 list ms':>12} {'2025 first ms':>14} {'check s':>8} {'cpu s':>6}")
    print(head)
    print("-" * len(head))
    for r in report["rows"]:
        per = f"{r['kib_per_capability']:.1f}" if r["kib_per_capability"] is not None else "-"
        print(f"{r['tools']:>12} {r['start_s']:>10.2f} {r['start_cpu_s']:>7.2f} {r['rss_kib'] / 1024:>8.0f} {per:>8} "
              f"{r['first_list_s'] * 1000:>14.1f} {r['first_list_cpu_s'] * 1000:>7.0f} {r['steady_p50_s'] * 1000:>12.1f} "
              f"{r['legacy_first_list_s'] * 1000:>14.1f} {r['check_s']:>8.1f} {r['check_cpu_s']:>6.1f}")
    print("cpu: the server's CPU seconds by healthy, its CPU ms for the first listing, facade check's CPU seconds "
          "(steadier than wall time on a busy machine)")
    print("first list and p50 list: 2026-07-28, whose arrays are built at start; 2025 first: then a 2025-11-25 "
          "session's first listing, which builds that era's array")
    print("KiB/cap: RSS growth over the smallest size, per added capability. Goals (issue 17): "
          f"<= {GOALS['kib_per_capability']:g} KiB/cap, first list <= {GOALS['first_list_s'] * 1000:g} ms, "
          f"check <= {GOALS['check_s']:g} s and healthy <= {GOALS['start_s_10k']:g} s at 10,000")
    if report["problems"]:
        print("\nwrong answers:", *report["problems"], sep="\n  ")


def main() -> int:
    if sys.argv[1:2] == ["stage"]:
        print(*stage_rss(sys.argv[2], int(sys.argv[3])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 2000, 10000], help="synthetic capabilities added, per size")
    parser.add_argument("--stages", type=int, metavar="N", help="instead: RSS per capability, stage by stage, with N synthetic")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # a deployment writes bytecode
    if args.stages:
        rows = stages(args.stages)
        print(f"$ python scripts/bench_scale.py --stages {args.stages}")
        for r in rows:
            print(f"{r['stage']:>10}  {r['kib_per_capability']:6.2f} KiB per capability (RSS growth)  "
                  f"{r['cpu_us_per_capability']:6.0f} µs of CPU per capability")
        print("unshared: the models with pydantic's own empty qualifier sets (the baseline); models: the plugin's input "
              "models alone; discovery: plus their declarations and the registry; service: the whole service, announced "
              "tools built, warm data folder")
        return 0
    report = run(args.sizes)
    print_report(report, "python scripts/bench_scale.py --sizes " + " ".join(map(str, args.sizes)))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())

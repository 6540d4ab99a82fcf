"""Worst-case calls beside everyone else's (issue 13 item 1): does a hostile agent's heaviest
input hold the server? `/healthz` and another agent's core call are timed with the server
idle and then while 4 worst-case calls (`--clients N`: N) run over and over, in the same run.

The worst cases, each found against an earlier version (5-68 s of one core each then):
- `files.grep` with `regex=true` and the catastrophic `(a+)+$` over a folder of long lines;
- `files.replace_text` with the same pattern on one long line;
- `calendar.event_create` with a rule that never fires (`FREQ=HOURLY;BYSETPOS=2`);
- `files.grep` over the whole sandbox, thousands of files (the per-call deadline's case).

    python scripts/bench_hostile.py            # 20 s under load, 200 probes each side
    python scripts/bench_hostile.py --short    # CI: a few seconds; fails only on a wrong answer
    python scripts/bench_hostile.py --short --clients 48   # more at once than the server has threads

The target is that each probe stays under 500 ms while the worst cases run; the figures are
printed, never asserted (these machines are noisy). A wrong answer fails the run: a probe that
errs, or a worst case that crashes instead of answering (a clear refusal is an answer).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import (  # noqa: E402
    DEV,
    copy_demo_agents,
    facade_server,
    fresh_workdir,
    jsonrpc,
    modern_body,
    modern_headers,
    percentile,
    workdir_env,
)

TARGET_MS = 500
# Short enough that the whole-sandbox grep of the full run meets it: the refusal is the point.
DEADLINE_SECONDS = 2
WORST = "worst"  # an agent that sees files and calendar in full
WORST_CASES: list[tuple[str, dict[str, Any]]] = [
    ("files.grep", {"path": "evil", "pattern": "(a+)+$", "regex": True}),
    ("files.replace_text", {"path": "evil/line-0.txt", "find": "(a+)+$", "replace": "b", "regex": True}),
    (
        "calendar.event_create",
        {"title": "never", "start": "2027-01-04T09:00:00Z", "end": "2027-01-04T10:00:00Z", "rrule": "FREQ=HOURLY;BYSETPOS=2"},
    ),
    ("files.grep", {"path": "/", "pattern": "needle"}),
]


def write_agents(folder: Path) -> Path:
    copy_demo_agents(folder)
    (folder / WORST).mkdir()
    (folder / WORST / "agent.toml").write_text(
        f'name = "{WORST}"\ndescription = "Sends the worst input it can."\n\n[apps]\nfiles = "full"\ncalendar = "full"\n'
    )
    return folder


def plant(files_root: Path, many: int) -> None:
    """Long lines for the catastrophic pattern, and a wide tree for the whole-sandbox grep."""
    evil = files_root / "evil"
    evil.mkdir(parents=True, exist_ok=True)
    for i in range(20):
        (evil / f"line-{i}.txt").write_text(("a" * 4000 + "!\n") * 50)
    for i in range(many):
        folder = files_root / "wide" / f"d{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.txt").write_text(f"line {i}\n" * 20)


def call(client: httpx2.Client, url: str, token: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    headers = {**modern_headers("tools/call", name), "Authorization": f"Bearer {token}", "X-Conversation-Id": "bench"}
    response = client.post(url, content=modern_body("tools/call", {"name": name, "arguments": arguments}), headers=headers, timeout=600)
    message = jsonrpc(response)
    if "error" in message:
        raise RuntimeError(f"{name}: JSON-RPC error {message['error']}")
    return message["result"]


def probe(client: httpx2.Client, base: str, samples: int) -> dict[str, list[float]]:
    """`/healthz` and atlas's `projects.project_list`, alternating; milliseconds."""
    timings: dict[str, list[float]] = {"healthz": [], "core call": []}
    for _ in range(samples):
        started = time.perf_counter()
        if client.get(f"{base}/healthz", timeout=600).status_code != 200:
            raise RuntimeError("/healthz did not answer 200")
        timings["healthz"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        result = call(client, f"{base}/mcp", DEV["atlas"], "projects.project_list", {})
        if result.get("isError"):
            raise RuntimeError(f"projects.project_list failed: {result}")
        timings["core call"].append((time.perf_counter() - started) * 1000)
    return timings


def hammer(url: str, stop: threading.Event, answers: list[tuple[str, float]], errors: list[str]) -> None:
    """Send the worst cases over and over until told to stop; record how each answered."""
    with httpx2.Client() as client:
        while not stop.is_set():
            for name, arguments in WORST_CASES:
                started = time.perf_counter()
                try:
                    result = call(client, url, f"facade-dev-{WORST}", name, arguments)
                except Exception as exc:  # a dropped connection or a JSON-RPC error is a wrong answer
                    errors.append(f"{name}: {exc}")
                    continue
                text = "".join(c.get("text", "") for c in result.get("content", []))
                if result.get("isError") and text.startswith(("internal error", "unavailable")):
                    errors.append(f"{name}: {text[:200]}")
                took = time.perf_counter() - started
                what = f"{name} {arguments.get('path', '')}".strip()
                answers.append((f"{what}: {'refused' if result.get('isError') else 'ok'}", took))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="CI: a few seconds, fewer probes")
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--files", type=int, default=None, help="files in the wide tree")
    parser.add_argument("--clients", type=int, default=4, help="hostile clients sending the worst cases at once")
    opts = parser.parse_args()
    samples = opts.samples or (30 if opts.short else 200)
    many = opts.files or (2000 if opts.short else 10000)
    workdir = fresh_workdir("facade-bench-hostile-")
    env = workdir_env(workdir, write_agents)
    plant(Path(env["FACADE_FILES_ROOT"]), many)
    server = facade_server(workdir, {"FACADE_CALL_DEADLINE_SECONDS": str(DEADLINE_SECONDS)}).start()
    try:
        with httpx2.Client() as client:
            probe(client, server.base, 5)  # warm both paths
            idle = probe(client, server.base, samples)
            stop, answers, errors = threading.Event(), [], []  # answers: (what, seconds)
            workers = [threading.Thread(target=hammer, args=(server.url, stop, answers, errors)) for _ in range(opts.clients)]
            for worker in workers:
                worker.start()
            time.sleep(0.5)  # let the worst cases start before the first probe
            loaded = probe(client, server.base, samples)
            stop.set()
            for worker in workers:
                worker.join()
    finally:
        server.stop()
    print(f"{opts.clients} clients sending {len(WORST_CASES)} worst cases in a loop ({len(answers)} answered); {samples} probes each side")
    print(f"{'probe':<10} {'idle p50':>9} {'idle p99':>9} {'loaded p50':>11} {'loaded p99':>11} {'loaded max':>11}  target")
    for name in idle:
        worst = max(loaded[name])
        print(
            f"{name:<10} {percentile(idle[name], 50):>7.1f}ms {percentile(idle[name], 99):>7.1f}ms "
            f"{percentile(loaded[name], 50):>9.1f}ms {percentile(loaded[name], 99):>9.1f}ms {worst:>9.1f}ms  "
            f"{'under' if worst < TARGET_MS else 'OVER'} {TARGET_MS} ms"
        )
    for line in sorted({a for a, _ in answers}):
        slowest = max(took for a, took in answers if a == line)
        print(f"  answered: {line} (slowest {slowest:.2f} s)")
    if errors:
        print(f"{len(errors)} wrong answers, e.g. {errors[:3]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The load test: many concurrent MCP sessions against one `facade serve`, over loopback.

Every session opens a 2025-11-25 session (initialize, initialized) as one agent (the demo agents
that see `projects`, alternating), then, until the time is up, lists its tools and creates a task
(`projects.task_create`, a writing call) with a title unique to the run, session and step. At the
end the tasks are counted in the SQLite file the server writes: every call that succeeded must
have its row (0 lost writes), and no row may exist for a call that failed. Errors are any non-200
answer, JSON-RPC error, tool error or transport exception. Memory per session is the server's RSS
with every session open and worked, minus its RSS before the first was opened, over the sessions.

    python scripts/bench_load.py                  # 200 sessions for 30 s
    python scripts/bench_load.py --short          # CI: 200 sessions for 5 s
    python scripts/bench_load.py --sessions 400 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import DEV, facade_server, failure, fresh_workdir, jsonrpc, legacy_body, legacy_open_async, percentile  # noqa: E402

AGENTS = ("atlas", "francis")  # both see projects.task_create
PROJECT_ID = 1


@dataclass
class Load:
    """What the sessions did, as the client saw it."""

    run: str
    sessions: int
    created: dict[str, int] = field(default_factory=dict)  # title → task id, for every success
    failed_titles: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    list_latency: list[float] = field(default_factory=list)
    call_latency: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    rss: dict[str, int] = field(default_factory=dict)

    def summary(self, rows: int | None, stray: int | None) -> dict[str, Any]:
        calls = [x * 1000 for x in self.call_latency]
        lists = [x * 1000 for x in self.list_latency]
        opened, before = self.rss.get("worked", 0), self.rss.get("before", 0)
        return {
            "sessions": self.sessions,
            "seconds": round(self.elapsed, 1),
            "requests": len(calls) + len(lists),
            "rps": round((len(calls) + len(lists)) / self.elapsed, 1) if self.elapsed else 0.0,
            "writes_ok": len(self.created),
            "rows": rows,
            "lost_writes": None if rows is None else len(self.created) - rows,
            "stray_rows": stray,
            "errors": len(self.errors),
            "list_p50_ms": percentile(lists, 50),
            "list_p99_ms": percentile(lists, 99),
            "call_p50_ms": percentile(calls, 50),
            "call_p99_ms": percentile(calls, 99),
            "rss_mb": {k: round(v / 2**20, 1) for k, v in self.rss.items()},
            "kb_per_session": round((opened - before) / 1024 / self.sessions, 1) if self.rss else None,
            "first_errors": self.errors[:5],
        }


async def run_load(url: str, sessions: int, seconds: float, pid: int | None = None) -> Load:
    """`sessions` concurrent sessions listing and writing for `seconds` (bounded: each stops at
    the deadline, and every request has a timeout)."""
    load = Load(run=uuid.uuid4().hex[:8], sessions=sessions)
    server = psutil.Process(pid) if pid else None
    limits = httpx2.Limits(max_connections=sessions + 10, max_keepalive_connections=sessions + 10)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as client:
        if server:
            load.rss["before"] = server.memory_info().rss

        async def opened(n: int) -> dict[str, str] | None:
            agent = AGENTS[n % len(AGENTS)]
            try:
                return await legacy_open_async(client, url, {"Authorization": f"Bearer {DEV[agent]}"})
            except Exception as exc:  # counted, not raised: the report says what failed
                load.errors.append(f"initialize: {exc.__class__.__name__}: {exc}")
                return None

        heads = await asyncio.gather(*(opened(n) for n in range(sessions)))
        if server:
            load.rss["opened"] = server.memory_info().rss
        started = time.perf_counter()
        deadline = started + seconds

        async def session(n: int, headers: dict[str, str] | None) -> None:
            if headers is None:
                return
            agent = AGENTS[n % len(AGENTS)]
            step = 0
            while time.perf_counter() < deadline:
                step += 1
                await timed(client, url, headers, legacy_body("tools/list", {}, step * 2), load.list_latency, load)
                title = f"load-{load.run}-{n}-{step}"
                args = {"project_id": PROJECT_ID, "title": title, "auth_token": DEV[agent], "conversation_id": f"load-{n}"}
                body = legacy_body("tools/call", {"name": "projects.task_create", "arguments": args}, step * 2 + 1)
                result = await timed(client, url, headers, body, load.call_latency, load)
                if result is None:
                    load.failed_titles.append(title)
                else:
                    load.created[title] = result["structuredContent"]["task"]["id"]

        await asyncio.gather(*(session(n, h) for n, h in enumerate(heads)))
        load.elapsed = time.perf_counter() - started
        if server:
            load.rss["worked"] = server.memory_info().rss
        for headers in heads:
            if headers is not None:
                await client.delete(url, headers=headers)
        if server:
            load.rss["closed"] = server.memory_info().rss
    return load


async def timed(client: httpx2.AsyncClient, url: str, headers: dict[str, str], body: bytes, into: list[float], load: Load) -> dict[str, Any] | None:
    started = time.perf_counter()
    try:
        response = await client.post(url, content=body, headers=headers)
    except Exception as exc:
        load.errors.append(f"{exc.__class__.__name__}: {exc}")
        return None
    into.append(time.perf_counter() - started)
    if (why := failure(response)) is not None:
        load.errors.append(why)
        return None
    return jsonrpc(response)["result"]


def count_rows(database: Path, load: Load) -> tuple[int, int]:
    """(rows whose title a successful call reported, with the id it reported; rows of this run
    that no successful call reported)."""
    with sqlite3.connect(database) as db:
        found = dict(db.execute("SELECT title, id FROM projects_task WHERE title LIKE ?", (f"load-{load.run}-%",)).fetchall())
    matched = sum(1 for title, task_id in load.created.items() if found.get(title) == task_id)
    return matched, len(set(found) - set(load.created))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="5 seconds, for CI")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seconds = args.seconds if args.seconds is not None else (5 if args.short else 30)
    workdir = fresh_workdir("bench-load-")
    server = facade_server(workdir).start()
    try:
        load = asyncio.run(run_load(server.url, args.sessions, seconds, server.pid))
    finally:
        server.stop()
    rows, stray = count_rows(workdir / "data" / "facade.db", load)
    summary = load.summary(rows, stray)
    command = "python scripts/bench_load.py" + " ".join(["", *sys.argv[1:]])
    print(f"$ {command}")
    for key, value in summary.items():
        if key == "first_errors" and not value:
            continue
        print(f"{key:>15}: {value:.2f}" if isinstance(value, float) else f"{key:>15}: {value}")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0 if summary["errors"] == 0 and summary["lost_writes"] == 0 and summary["writes_ok"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

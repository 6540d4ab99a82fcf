"""The load test: many concurrent MCP sessions writing, against `facade serve` and against the
official SDK's `MCPServer` (scripts/baseline.py, the same handlers) on the same PostgreSQL
database, in the same run, over loopback.

Every session opens a 2025-11-25 session (initialize, initialized), as one of the demo agents that
see `projects` (alternating) on the facade, then until the time is up creates tasks
(`projects.task_create`) with titles unique to the run, side, session and step. Each side runs
50 and then 200 sessions; the order of the sides alternates, so a busy machine hurts both alike.
After each load the tasks are counted in the database: every call that succeeded must have its
row (0 lost writes) and no row may exist for a call that failed. Errors are any non-200 answer,
JSON-RPC error, tool error or transport exception. Memory per session is the server's RSS with
every session open and worked, minus its RSS before the first was opened, over the sessions.

    python scripts/bench_load.py                      # 50 and 200 sessions, 30 s each, both sides
    python scripts/bench_load.py --short              # CI: 3 s each (~1 minute in all)
    python scripts/bench_load.py --sessions 400 --seconds 60 --database sqlite
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import psutil
from sqlalchemy import create_engine, text

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import (  # noqa: E402
    DEV,
    LoopbackServer,
    PostgresUnavailable,
    baseline_server,
    facade_server,
    failure,
    fresh_workdir,
    jsonrpc,
    legacy_body,
    legacy_open_async,
    percentile,
    postgres_database,
)

AGENTS = ("atlas", "francis")  # both see projects.task_create
PROJECT_ID = 1
SESSION_COUNTS = (50, 200)


@dataclass
class Load:
    """What the sessions did, as the client saw it."""

    run: str
    sessions: int
    side: str = "facade"
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
            "side": self.side,
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


async def run_load(
    url: str, sessions: int, seconds: float, pid: int | None = None, *, baseline: bool = False, lists: bool = True
) -> Load:
    """`sessions` concurrent sessions writing (and, with `lists`, listing their tools before each
    write) for `seconds`; bounded: each stops at the deadline, and every request has a timeout.
    `baseline`: the server is scripts/baseline.py's MCPServer, which takes no bearer and wants
    the capability's arguments as `args`, the identity beside them."""
    load = Load(run=uuid.uuid4().hex[:8], sessions=sessions, side="MCPServer" if baseline else "facade")
    server = psutil.Process(pid) if pid else None
    limits = httpx2.Limits(max_connections=sessions + 10, max_keepalive_connections=sessions + 10)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as client:
        if server:
            load.rss["before"] = server.memory_info().rss

        async def opened(n: int) -> dict[str, str] | None:
            bearer = {} if baseline else {"Authorization": f"Bearer {DEV[AGENTS[n % len(AGENTS)]]}"}
            try:
                return await legacy_open_async(client, url, bearer)
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
            identity = {"auth_token": DEV[AGENTS[n % len(AGENTS)]], "conversation_id": f"load-{n}"}
            step = 0
            while time.perf_counter() < deadline:
                step += 1
                if lists:
                    await timed(client, url, headers, legacy_body("tools/list", {}, step * 2), load.list_latency, load)
                title = f"load-{load.run}-{n}-{step}"
                task = {"project_id": PROJECT_ID, "title": title}
                args = {"args": task, **identity} if baseline else {**task, **identity}
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


def count_rows(database_url: str, load: Load) -> tuple[int, int]:
    """(rows whose title a successful call reported, with the id it reported; rows of this run
    that no successful call reported)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as db:
            found = dict(
                db.execute(text("SELECT title, id FROM projects_task WHERE title LIKE :run"), {"run": f"load-{load.run}-%"}).all()
            )
    finally:
        engine.dispose()
    matched = sum(1 for title, task_id in load.created.items() if found.get(title) == task_id)
    return matched, len(set(found) - set(load.created))


@contextlib.contextmanager
def database(kind: str, workdir: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'data' / 'facade.db'}"
        return
    try:
        with postgres_database() as url:
            yield url
    except PostgresUnavailable as exc:
        sys.exit(f"bench_load: PostgreSQL is needed ({exc}); or run with --database sqlite")


def table(summaries: list[dict[str, Any]]) -> str:
    """The README's table: one row per side and session count."""
    lines = [
        "| server | sessions | req/s | p50 ms | p99 ms | writes (rows) | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in sorted(summaries, key=lambda s: (s["sessions"], s["side"] != "facade")):
        lines.append(
            f"| {s['side']} | {s['sessions']} | {s['rps']:.0f} | {s['call_p50_ms']:.0f} | {s['call_p99_ms']:.0f} "
            f"| {s['writes_ok']} ({s['rows']}) | {s['errors']} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="3 seconds per load, for CI")
    parser.add_argument("--sessions", type=int, action="append", help=f"session counts (default {SESSION_COUNTS})")
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--database", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--facade-only", action="store_true", help="no MCPServer beside it")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seconds = args.seconds if args.seconds is not None else (3 if args.short else 30)
    workdir = fresh_workdir("bench-load-")
    summaries: list[dict[str, Any]] = []
    with database(args.database, workdir) as url:
        env = {} if args.database == "sqlite" else {"FACADE_DATABASE_URL": url}
        sides = [facade_server(workdir, env)]
        if not args.facade_only:
            sides.append(baseline_server(workdir, env))
        try:
            for side in sides:  # the facade migrates and seeds; the baseline opens the database on its first call
                side.launch()
            for side in sides:
                side.wait()
            for round_no, sessions in enumerate(args.sessions or SESSION_COUNTS):
                for side in sides if round_no % 2 == 0 else sides[::-1]:
                    summaries.append(measure(side, url, sessions, seconds))
        finally:
            for side in sides:
                side.stop()
    command = "python scripts/bench_load.py" + " ".join(["", *sys.argv[1:]])
    print(f"$ {command}")
    for summary in summaries:
        print(json.dumps({k: v for k, v in summary.items() if v or k != "first_errors"}))
    print(table(summaries))
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=2))
    ok = all(s["errors"] == 0 and s["lost_writes"] == 0 and s["stray_rows"] == 0 and s["writes_ok"] > 0 for s in summaries)
    return 0 if ok else 1


def measure(side: LoopbackServer, database_url: str, sessions: int, seconds: float) -> dict[str, Any]:
    load = asyncio.run(run_load(side.url, sessions, seconds, side.pid, baseline=side.name == "baseline", lists=False))
    return load.summary(*count_rows(database_url, load))


if __name__ == "__main__":
    sys.exit(main())

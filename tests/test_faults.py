"""Faults against a real `facade serve`: killed with SIGKILL in the middle of writes and
restarted on the same database, and a database that goes away and comes back.

After a kill, every write the server acknowledged is there, and nothing is half-written: each
journal entry has balanced lines, each task row is complete. While the database is away, calls
get a clear "unavailable" refusal, /healthz says degraded, and the server keeps serving; when
the database returns, so does everything else, with no restart.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, text

from tests.support import (
    DEV,
    POSTGRES_ADMIN_URL,
    ServerProcess,
    jsonrpc,
    modern_body,
    modern_headers,
    postgres_database,
)

WALKER = {"Authorization": f"Bearer {DEV['walker']}"}
WRITERS = 6
WRITE_SECONDS = 4.0


def call(client: httpx2.Client, server: ServerProcess, name: str, arguments: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
    body = modern_body("tools/call", {"name": name, "arguments": arguments})
    headers = {**modern_headers("tools/call", name), **WALKER}
    return jsonrpc(client.post(server.url, content=body, headers=headers, timeout=timeout))["result"]


def text_of(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []))


def journal_entry(n: int) -> dict[str, Any]:
    amount = f"{n % 997 + 1}.{n % 100:02d}"
    return {
        "entry_date": "2026-11-03",
        "memo": f"fault-{n}",
        "lines": [
            {"account_id": 1, "debit": amount},
            {"account_id": 9, "credit": amount},
        ],
    }


def task(n: int) -> dict[str, Any]:
    return {"project_id": 1, "title": f"fault task {n}", "priority": "high", "due_date": "2027-01-08", "milestone_id": 2, "assignee_ids": [1]}


@contextlib.contextmanager
def database(kind: str, workdir: Path) -> Iterator[tuple[dict[str, str], str]]:
    """The server's env for `kind` and a URL the test reads the same database through."""
    if kind == "sqlite":
        yield {}, f"sqlite:///{workdir / 'data' / 'facade.db'}"
    else:
        with postgres_database() as url:
            yield {"FACADE_DATABASE_URL": url}, url


@pytest.fixture(params=["sqlite", "postgresql"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


class TestKilledDuringWrites:
    """SIGKILL while six clients write; the restarted server finds a consistent database."""

    def test_kill_restart_consistent(self, kind: str, tmp_path: Path) -> None:
        with database(kind, tmp_path) as (env, url):
            server = ServerProcess(tmp_path, env=env).start()
            acknowledged: dict[str, list[int]] = {"entries": [], "tasks": []}
            stop = threading.Event()
            counter = iter(range(10**9))
            lock = threading.Lock()

            thread_errors: list[str] = []

            def write() -> None:
                try:
                    write_until_stopped()
                except Exception as exc:  # noqa: BLE001 — a writer's own failure must fail the test, not vanish
                    thread_errors.append(repr(exc))

            def write_until_stopped() -> None:
                with httpx2.Client() as client:
                    while not stop.is_set():
                        with lock:
                            n = next(counter)
                        kind_, name, args = (
                            ("entries", "finance.journal_entry_create", journal_entry(n))
                            if n % 2
                            else ("tasks", "projects.task_create", task(n))
                        )
                        try:
                            result = call(client, server, name, args, timeout=10)
                        except (httpx2.HTTPError, ValueError):
                            continue  # the kill cut this call off: it was never acknowledged
                        if not result.get("isError"):
                            data = result.get("structuredContent") or {}
                            record = data.get("journal_entry") or data.get("task") or {}
                            acknowledged[kind_].append(int(record["id"]))

            threads = [threading.Thread(target=write, daemon=True) for _ in range(WRITERS)]
            for t in threads:
                t.start()
            time.sleep(WRITE_SECONDS)
            assert server.process is not None
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(10)
            stop.set()
            for t in threads:
                t.join(15)
            assert thread_errors == []
            assert acknowledged["entries"] and acknowledged["tasks"], "no write was acknowledged before the kill"

            restarted = ServerProcess(tmp_path, env=env).start()
            try:
                engine = create_engine(url)
                with engine.connect() as db:
                    entries = {row.id: row for row in db.execute(text("SELECT id, memo, status FROM finance_journal_entry"))}
                    lines = db.execute(text("SELECT entry_id, debit, credit, account_id FROM finance_journal_line")).all()
                    tasks = db.execute(
                        text("SELECT id, project_id, title, status, priority, created_at, updated_at FROM projects_task")
                    ).all()
                    assigned = {r.task_id for r in db.execute(text("SELECT task_id FROM projects_assignment"))}
                engine.dispose()
                totals: dict[int, list[Decimal]] = {}
                for line in lines:
                    debit_credit = totals.setdefault(line.entry_id, [Decimal(0), Decimal(0), Decimal(0)])
                    debit_credit[0] += Decimal(str(line.debit))
                    debit_credit[1] += Decimal(str(line.credit))
                    debit_credit[2] += 1
                # Every acknowledged write survived the kill.
                assert set(acknowledged["entries"]) <= set(entries), "an acknowledged journal entry was lost"
                task_ids = {t.id for t in tasks}
                assert set(acknowledged["tasks"]) <= task_ids, "an acknowledged task was lost"
                # No half-written record: every posted entry balances (drafts may not, by design),
                # every entry the kill interrupted has both its lines, every task is whole.
                ours = 0
                for entry_id, entry in entries.items():
                    debit, credit, count = totals.get(entry_id, [Decimal(0), Decimal(0), 0])
                    if entry.memo.startswith("fault-"):
                        ours += 1
                        assert count == 2 and debit == credit, f"journal entry {entry_id} ({entry.memo}) is half-written: {debit} vs {credit}, {count} lines"
                    elif entry.status == "posted":
                        assert debit == credit, f"posted journal entry {entry_id} is unbalanced: {debit} vs {credit}"
                assert ours >= len(acknowledged["entries"])
                for row in tasks:
                    assert all(v is not None for v in row), f"task row {row.id} is incomplete: {row}"
                ours = [row for row in tasks if row.title.startswith("fault task")]
                assert all(row.id in assigned for row in ours), "a fault task lost its assignment: half-written"
                # And the restarted server serves, reads and writes.
                with httpx2.Client() as client:
                    written = call(client, restarted, "finance.journal_entry_create", journal_entry(10**6))
                    assert not written.get("isError"), text_of(written)
            finally:
                restarted.stop()


class TestDatabaseUnavailable:
    """The database goes away under a running server and comes back."""

    def test_postgres_away_then_back(self, tmp_path: Path) -> None:
        with postgres_database() as url:
            name = url.rsplit("/", 1)[1]
            server = ServerProcess(tmp_path, env={"FACADE_DATABASE_URL": url}).start()
            admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
            try:
                with httpx2.Client() as client:
                    assert not call(client, server, "projects.task_create", task(1)).get("isError")
                    with admin.connect() as conn:
                        conn.execute(text(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false'))
                        conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"), {"n": name})
                    started = time.monotonic()
                    for tool, arguments in (
                        ("projects.task_create", task(2)),
                        ("projects.task_list", {}),
                        ("finance.journal_entry_create", journal_entry(3)),
                    ):
                        result = call(client, server, tool, arguments)
                        assert result.get("isError"), (tool, result)
                        message = text_of(result)
                        assert message.startswith("unavailable"), (tool, message)
                        assert "Traceback" not in message and "psycopg" not in message and name not in message
                    assert time.monotonic() - started < 30, "calls hung while the database was away"
                    health = httpx2.get(f"{server.base}/healthz", timeout=15)
                    assert health.status_code == 503 and health.json()["status"] == "degraded"
                    # The server itself stays up: listing needs no database.
                    listed = client.post(
                        server.url, content=modern_body("tools/list", {}), headers={**modern_headers("tools/list"), **WALKER}, timeout=15
                    )
                    assert len(jsonrpc(listed)["result"]["tools"]) > 400
                    assert server.process is not None and server.process.poll() is None

                    with admin.connect() as conn:
                        conn.execute(text(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true'))
                    deadline = time.monotonic() + 30
                    while httpx2.get(f"{server.base}/healthz", timeout=15).status_code != 200:
                        assert time.monotonic() < deadline, "/healthz did not recover after the database returned"
                        time.sleep(0.5)
                    back = call(client, server, "projects.task_create", task(4))
                    assert not back.get("isError"), text_of(back)
                log = server.log()
                assert "tool.database_unavailable" in log
            finally:
                with admin.connect() as conn:
                    conn.execute(text(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true'))
                admin.dispose()
                server.stop()

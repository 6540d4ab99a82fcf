"""The load test, small: concurrent MCP sessions against a real `facade serve`, each listing and
writing for a few seconds, lose nothing and fail nothing (scripts/bench_load.py is the full one);
and on PostgreSQL the server holds no more database connections and worker threads than its
settings give it, whatever the number of sessions."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
from sqlalchemy import create_engine, text

from tests.support import REPO, ServerProcess, postgres_database

sys.path.insert(0, str(REPO / "scripts"))

from bench_load import Load, count_rows, run_load  # noqa: E402

SESSIONS = 30
SECONDS = 4


class TestConcurrentSessions:
    """Thirty sessions at once on the suite's server, each listing its tools and creating tasks
    (titles unique to this run, so other tests' rows never count) until the time is up."""

    def test_no_errors_and_no_lost_writes(self, server: ServerProcess) -> None:
        load = asyncio.run(run_load(server.url, SESSIONS, SECONDS, server.process.pid if server.process else None))
        rows, stray = count_rows(f"sqlite:///{server.workdir / 'data' / 'facade.db'}", load)
        summary = load.summary(rows, stray)
        assert summary["errors"] == 0, summary["first_errors"]
        assert summary["writes_ok"] >= SESSIONS, summary  # every session wrote at least once
        assert summary["lost_writes"] == 0 and summary["stray_rows"] == 0, summary
        assert len(load.list_latency) >= SESSIONS, summary


class Peaks:
    """The most connections the server had open to its database, how many of them wait on a
    lock now, and the most threads the server ran: sampled in a thread of its own until stopped."""

    def __init__(self, url: str, pid: int) -> None:
        self.database = url.rsplit("/", 1)[1]
        # Autocommit: inside one transaction pg_stat_activity would answer from its first snapshot.
        self.engine = create_engine(url, isolation_level="AUTOCOMMIT")
        self.process = psutil.Process(pid)
        self.connections = self.waiting = self.threads = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        query = text(
            "SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity "
            "WHERE datname = :d AND pid <> pg_backend_pid() AND application_name <> 'holder'"
        )
        with self.engine.connect() as db:
            while not self.stop.wait(0.02):
                held, self.waiting = db.execute(query, {"d": self.database}).one()
                self.connections = max(self.connections, held)
                self.threads = max(self.threads, self.process.num_threads())

    def until(self, condition: Callable[[], bool], seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def __enter__(self) -> Peaks:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(30)
        self.engine.dispose()


class TestSizedForLoad:
    """FACADE_DATABASE_POOL_SIZE and FACADE_WORKER_THREADS bound what a loaded server holds. While
    PostgreSQL makes every write wait (the test holds a lock on the tasks table), thirty sessions'
    writes pile up: no more of them reach the database than the pool has connections, no more
    worker threads run than the setting gives; once the lock goes, every write lands."""

    POOL = 3
    THREADS = 4

    def test_pool_and_threads_bound_the_server(self, tmp_path: Path) -> None:
        with postgres_database() as url:
            env = {
                "FACADE_DATABASE_URL": url,
                "FACADE_DATABASE_POOL_SIZE": str(self.POOL),
                "FACADE_WORKER_THREADS": str(self.THREADS),
            }
            server = ServerProcess(tmp_path, env=env).start()
            holder = create_engine(url, connect_args={"application_name": "holder"})
            loads: list[Load] = []
            try:
                idle_threads = psutil.Process(server.pid).num_threads()  # /healthz already used a worker
                with Peaks(url, server.pid) as peaks, holder.connect() as lock:
                    lock.execute(text("LOCK TABLE projects_task IN SHARE MODE"))  # inserts wait for it
                    writer = threading.Thread(
                        target=lambda: loads.append(asyncio.run(run_load(server.url, SESSIONS, 1, server.pid, lists=False)))
                    )
                    writer.start()
                    assert peaks.until(lambda: peaks.waiting >= self.POOL, 120), "the writes never reached the database"
                    # Past the pool none may follow: give them a while to try (old code: 30 did).
                    peaks.until(lambda: peaks.waiting > self.POOL, 5)
                    lock.rollback()
                    writer.join(180)
                summary = loads[0].summary(*count_rows(url, loads[0]))
            finally:
                holder.dispose()
                server.stop()
        assert summary["errors"] == 0, summary["first_errors"]
        assert summary["writes_ok"] >= SESSIONS and summary["lost_writes"] == 0 and summary["stray_rows"] == 0, summary
        assert peaks.connections <= self.POOL, f"{peaks.connections} connections open, pool size {self.POOL}"
        assert peaks.threads <= idle_threads + self.THREADS, f"{peaks.threads} threads, {idle_threads} idle + {self.THREADS}"

"""The load test, small: concurrent MCP sessions against a real `facade serve`, each listing and
writing for a few seconds, lose nothing and fail nothing (scripts/bench_load.py is the full one)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.support import REPO, ServerProcess

sys.path.insert(0, str(REPO / "scripts"))

from bench_load import count_rows, run_load  # noqa: E402

SESSIONS = 30
SECONDS = 4


class TestConcurrentSessions:
    """Thirty sessions at once on the suite's server, each listing its tools and creating tasks
    (titles unique to this run, so other tests' rows never count) until the time is up."""

    def test_no_errors_and_no_lost_writes(self, server: ServerProcess) -> None:
        load = asyncio.run(run_load(server.url, SESSIONS, SECONDS, server.process.pid if server.process else None))
        rows, stray = count_rows(server.workdir / "data" / "facade.db", load)
        summary = load.summary(rows, stray)
        assert summary["errors"] == 0, summary["first_errors"]
        assert summary["writes_ok"] >= SESSIONS, summary  # every session wrote at least once
        assert summary["lost_writes"] == 0 and summary["stray_rows"] == 0, summary
        assert len(load.list_latency) >= SESSIONS, summary

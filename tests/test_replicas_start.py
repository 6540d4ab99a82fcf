"""Replicas started together on a fresh PostgreSQL database: every one migrates (or finds the
schema at head), seeds (or finds the demo data there) and serves. Before migrations ran under an
advisory lock, two of them raced on `alembic_version` and on the seed rows, and one died."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import create_engine, text

from tests.support import ServerProcess, postgres_database

REPLICAS = 3
# Each replica imports ~450 capabilities before it touches the database; three at once on a busy
# 2-core machine take well under a minute, so this bounds a hang, not the speed.
UP_WITHIN = 300


@contextlib.contextmanager
def fresh_database(kind: str, folder: Path) -> Iterator[str]:
    """A database no replica has touched: a new PostgreSQL database, or one SQLite file that
    every replica shares (as `facade serve` and `facade stdio` on one data folder do)."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'shared.db'}"
    else:
        with postgres_database() as url:
            yield url


class TestReplicasStartTogether:
    """Three `facade serve` processes launched at the same moment on one fresh database."""

    @pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
    def test_all_become_healthy_and_seed_once(self, kind: str, tmp_path: Path) -> None:
        with fresh_database(kind, tmp_path) as url:
            replicas = [
                ServerProcess(tmp_path / f"replica-{n}", env={"FACADE_DATABASE_URL": url}, name=f"replica-{n}")
                for n in range(REPLICAS)
            ]
            for replica in replicas:
                replica.workdir.mkdir()
            try:
                for replica in replicas:  # all launched before any is waited on
                    replica.launch()
                deadline = time.monotonic() + UP_WITHIN
                for replica in replicas:
                    # wait() raises with the replica's log if it exited (the race killed it).
                    replica.wait(max(1.0, deadline - time.monotonic()))
                    health = httpx2.get(f"{replica.base}/healthz", timeout=30)
                    assert health.status_code == 200, (replica.name, health.text, replica.log())
                for replica in replicas:
                    assert replica.process is not None and replica.process.poll() is None, replica.log()
                    assert "UniqueViolation" not in replica.log(), replica.log()
                engine = create_engine(url)
                try:
                    with engine.connect() as db:
                        # Seeded once, not once per replica: the demo projects are there exactly once.
                        names = db.execute(text("SELECT name FROM projects_project")).scalars().all()
                        assert sorted(names) == sorted(set(names)) and len(names) > 0, names
                        heads = db.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
                        assert len(heads) == len(set(heads)) > 0, heads
                finally:
                    engine.dispose()
            finally:
                for replica in replicas:
                    replica.stop()

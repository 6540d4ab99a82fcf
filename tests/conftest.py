"""Fixtures: one real `facade serve` per test session on SQLite, and one on PostgreSQL on demand."""

from __future__ import annotations

from collections.abc import Iterator
import pytest

from tests.support import ServerProcess, postgres_database

# The two protocol eras real clients use: the 2025-11-25 handshake and 2026-07-28 requests.
ERAS = ["legacy", "auto"]


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("server")).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with postgres_database() as url:
        proc = ServerProcess(tmp_path_factory.mktemp("pgserver"), env={"FACADE_DATABASE_URL": url}).start()
        yield proc
        proc.stop()


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return request.param


"""`/readyz` (ready to serve: the database and, when configured, Redis answer) beside `/healthz`
(alive), on real servers whose Redis or database is away."""

from __future__ import annotations

from pathlib import Path

import httpx2
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine, text

from tests.support import POSTGRES_ADMIN_URL, ServerProcess, free_port, postgres_database
from tests.test_elevation_backends import private_redis


def get(server: ServerProcess, path: str) -> httpx2.Response:
    return httpx2.get(f"{server.base}{path}", timeout=60)


def counter(server: ServerProcess, name: str) -> float:
    """The sum of a counter's samples over its labels (0 while it has none)."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(get(server, "/metrics").text)
        for sample in family.samples
        if sample.name == name
    )


class TestReady:
    """Ready only when everything the server needs answers; alive regardless."""

    def test_without_redis_only_the_database_is_asked(self, server: ServerProcess) -> None:
        response = get(server, "/readyz")
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "database": "ok"}

    def test_redis_gone_is_not_ready_but_alive(self, tmp_path: Path) -> None:
        """Redis that goes away after the start (one that is away at the start stops it with one
        line: tests/test_cli.py): not ready, still alive, its errors counted."""
        port = free_port()
        with private_redis(port) as redis:
            server = ServerProcess(tmp_path, env={"FACADE_REDIS_URL": f"redis://127.0.0.1:{port}/0"}).start()
            try:
                errors = counter(server, "facade_redis_errors_total")
                redis.stop()
                response = get(server, "/readyz")
                assert response.status_code == 503
                assert response.json() == {"status": "degraded", "database": "ok", "redis": "unreachable"}
                assert get(server, "/healthz").status_code == 200  # core tools still work: alive
                assert counter(server, "facade_redis_errors_total") > errors
            finally:
                server.stop()

    def test_follows_redis_and_the_database_going_away(self, tmp_path: Path) -> None:
        """PostgreSQL and a Redis of the test's own: ready; Redis stopped, then back; the
        database dropped under the running server."""
        port = free_port()
        with private_redis(port) as redis, postgres_database() as url:
            server = ServerProcess(
                tmp_path, env={"FACADE_REDIS_URL": f"redis://127.0.0.1:{port}/0", "FACADE_DATABASE_URL": url}
            ).start()
            try:
                assert get(server, "/readyz").json() == {"status": "ok", "database": "ok", "redis": "ok"}
                redis.stop()
                away = get(server, "/readyz")
                assert (away.status_code, away.json()["redis"], away.json()["database"]) == (503, "unreachable", "ok")
                redis.start()
                assert get(server, "/readyz").status_code == 200

                errors = counter(server, "facade_database_errors_total")
                admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
                with admin.connect() as connection:
                    connection.execute(text(f'DROP DATABASE "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
                admin.dispose()
                gone = get(server, "/readyz")
                assert (gone.status_code, gone.json()["database"], gone.json()["redis"]) == (503, "unreachable", "ok")
                assert counter(server, "facade_database_errors_total") > errors
            finally:
                server.stop()

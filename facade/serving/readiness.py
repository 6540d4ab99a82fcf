"""Readiness: whether this replica can serve now — its database answers and, when it keeps
elevations and cards in Redis, Redis answers. Liveness (`/healthz`) asks less: a replica whose
Redis is away still serves core tools, so it is alive but not ready."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import text

from facade.serving.service import Service


def readiness(service: Service) -> dict[str, str]:
    """`ok` or `unreachable` for the database and, when configured, Redis. Blocks on both (each
    bounded by its timeouts): call it from a worker thread. A failed database probe is counted
    by the engine's error hook; a failed Redis probe is counted here."""
    checks = {"database": _check(lambda: ping_database(service))}
    url = service.settings.redis_url
    if url:
        from facade.access.redis_store import ping  # only a server with Redis loads its client

        checks["redis"] = _check(lambda: ping(url), on_error=service.metrics.redis_failed)
    return checks


def ping_database(service: Service) -> None:
    with service.engine.connect() as connection:
        connection.execute(text("SELECT 1"))


def _check(probe: Callable[[], None], on_error: Callable[[], None] | None = None) -> str:
    try:
        probe()
    except Exception:
        if on_error is not None:
            on_error()
        return "unreachable"
    return "ok"

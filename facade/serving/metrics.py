"""The service's Prometheus metrics, in a registry of its own (one per service, so one per
replica and per test; nothing is kept in prometheus_client's global registry).

Counters move where things happen: a tool call (facade/serving/calls.py), a `tools/list`
(facade/mcp/server.py), a failed database statement (an engine event: every statement, wherever
it runs), a failed Redis command (the stores' error hook). What needs a store read — cards
pending, elevations active — is read when scraped, which `GET /metrics` does in a worker thread.

Labels are bounded: agents and domains come from the configuration (a name the caller made up
becomes `unknown`), outcomes from `Outcome.status`; a conversation is never a label.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import IntegrityError

from facade.access.cards import CardStore
from facade.access.elevation import Elevations
from facade.errors import Unavailable

UNKNOWN = "unknown"
RUNTIME = "*"  # the agent label of a runtime's listing: the whole catalogue, for many agents
# Tool calls run from ~1 ms (a read) to seconds (a scan, a probe with its timeout).
CALL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# Pauses: the goal is none over 20 ms at 449 capabilities and 50 ms at 10,000 (issue 17).
PAUSE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5)


class Children:
    """A labelled metric's children, by label values. prometheus_client's `labels()` validates
    and takes a lock on every call; the child of a set of values never changes, and the sets are
    bounded (above), so each is looked up once (issue 17: two lookups on every tools/call)."""

    def __init__(self, metric: Counter | Histogram) -> None:
        self.metric = metric
        self._kept: dict[tuple[str, ...], Any] = {}

    def __call__(self, *values: str) -> Any:
        child = self._kept.get(values)
        if child is None:
            child = self._kept[values] = self.metric.labels(*values)
        return child


class Metrics:
    """Every metric of one service; `render()` is the `/metrics` body."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.tool_calls = Counter(
            "facade_tool_calls", "Tool calls by agent, domain and outcome.", ["agent", "domain", "outcome"], registry=r
        )
        self.call_seconds = Histogram(
            "facade_tool_call_duration_seconds", "Time from a tools/call's arrival to its outcome.", ["domain"],
            buckets=CALL_BUCKETS, registry=r,
        )
        self.listings = Counter("facade_tools_list", "tools/list answers, by agent and protocol era.", ["agent", "era"], registry=r)
        self.listed_bytes = Counter(
            "facade_tools_list_bytes", "Bytes of tools arrays served by tools/list.", ["agent", "era"], registry=r
        )
        self.sessions_open = Gauge("facade_sessions_open", "Handshake-era MCP sessions open on this replica.", registry=r)
        self.database_errors = Counter(
            "facade_database_errors", "Database statements or connections that failed, by error class.", ["kind"], registry=r
        )
        self.redis_errors = Counter("facade_redis_errors", "Redis commands that failed.", registry=r)
        self.loop_lag = Histogram(
            "facade_event_loop_lag_seconds", "How late the event loop woke the lag probe (a pause every request waited out).",
            buckets=PAUSE_BUCKETS, registry=r,
        )
        self.loop_lag_max = Gauge("facade_event_loop_lag_max_seconds", "The longest event-loop lag seen since start.", registry=r)
        self.gc_pauses = Histogram(
            "facade_gc_pause_seconds", "Garbage collections by generation, with the time each stopped the process.",
            ["generation"], buckets=PAUSE_BUCKETS, registry=r,
        )
        ProcessCollector(registry=r)
        self._calls, self._call_seconds = Children(self.tool_calls), Children(self.call_seconds)
        self._listings, self._listed_bytes = Children(self.listings), Children(self.listed_bytes)
        self._longest_lag = 0.0

    def called(self, agent: str | None, domain: str | None, outcome: str, seconds: float) -> None:
        self._calls(agent or UNKNOWN, domain or UNKNOWN, outcome).inc()
        self._call_seconds(domain or UNKNOWN).observe(seconds)

    def listed(self, agent: str | None, era: str, size: int) -> None:
        self._listings(agent or RUNTIME, era).inc()
        self._listed_bytes(agent or RUNTIME, era).inc(size)

    def lagged(self, seconds: float) -> None:
        self.loop_lag.observe(seconds)
        if seconds > self._longest_lag:
            self._longest_lag = seconds
            self.loop_lag_max.set(seconds)

    def redis_failed(self) -> None:
        self.redis_errors.inc()

    def watch_database(self, engine: Engine) -> None:
        """Count every failed statement and connection of `engine`. A constraint violation is a
        conflict the caller is told about, not the database failing; a pre-ping that finds a
        dropped connection is recovered by a new one."""

        def failed(context: ExceptionContext) -> None:
            error = context.sqlalchemy_exception or context.original_exception
            if context.is_pre_ping or isinstance(error, IntegrityError):
                return
            self.database_errors.labels(type(error).__name__).inc()

        event.listen(engine, "handle_error", failed)

    def watch_stores(self, cards: CardStore, elevations: Elevations) -> None:
        self.registry.register(_StoreCollector(cards, elevations))

    def render(self) -> bytes:
        """The text exposition; reads the stores, so call it from a worker thread."""
        return generate_latest(self.registry)


class _StoreCollector(Collector):
    """Cards pending and elevations active, read from their stores at each scrape. With Redis
    every replica reads the same shared stores (aggregate with `max`, not `sum`); while Redis is
    away the gauges are left out of the scrape rather than reported as zero."""

    def __init__(self, cards: CardStore, elevations: Elevations) -> None:
        self.cards = cards
        self.elevations = elevations

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())  # nothing to read at registration; the families appear at collection

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = time.time()
        try:
            pending = sum(1 for c in self.cards.all() if c.current(now).status == "pending")
        except Unavailable:
            pending = None
        if pending is not None:
            yield GaugeMetricFamily("facade_cards_pending", "Approval cards waiting for an operator.", value=pending)
        active = self.elevations.active()
        if active is not None:
            yield GaugeMetricFamily("facade_elevations_active", "Live elevations (agent, conversation, domain).", value=active)

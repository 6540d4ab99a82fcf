"""`GET /metrics` scraped over real HTTP after real MCP calls, read with prometheus_client's own
parser; and the metrics' registry, one per service."""

from __future__ import annotations

import json
import uuid

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError, OperationalError

from facade.serving.metrics import Metrics
from tests.support import ACCEPT, DEV, ServerProcess, legacy_open, mcp_client, modern_body, modern_headers

pytestmark = pytest.mark.anyio
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(body: str) -> Samples:
    """Every sample of an exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }


def scrape(server: ServerProcess) -> Samples:
    response = httpx2.get(f"{server.base}/metrics", timeout=60)  # no token: open like /healthz
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return parse(response.text)


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def operator(server: ServerProcess, method: str, path: str) -> httpx2.Response:
    return httpx2.request(method, f"{server.base}{path}", headers={"Authorization": f"Bearer {DEV['operator']}"}, timeout=60)


class TestScrape:
    """The counters and gauges move with what the server did, as a scraper reads them."""

    async def test_calls_listings_cards_elevations_sessions(self, server: ServerProcess) -> None:
        before = scrape(server)
        conversation = f"metrics-{uuid.uuid4().hex[:8]}"
        async with mcp_client(server.url, DEV["francis"], mode="legacy", headers={"X-Conversation-Id": conversation}) as client:
            await client.list_tools()
            found = await client.call_tool("skills.tool_search", {"query": "rename files"})
            assert not found.is_error
            unknown = await client.call_tool("nosuch.thing", {})
            assert unknown.is_error
            held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "metrics test"})
            card_id = held.structured_content["card_id"]
            during = scrape(server)

        key = {"agent": "francis"}
        calls = "facade_tool_calls_total"
        assert value(during, calls, **key, domain="skills", outcome="ok") == value(before, calls, **key, domain="skills", outcome="ok") + 1
        assert value(during, calls, **key, domain="skills", outcome="held") == value(before, calls, **key, domain="skills", outcome="held") + 1
        # A made-up tool name is no label: it counts under `unknown`.
        assert value(during, calls, **key, domain="unknown", outcome="unknown_tool") == (
            value(before, calls, **key, domain="unknown", outcome="unknown_tool") + 1
        )
        assert not [k for k in during if k[0] == calls and ("domain", "nosuch") in k[1]]
        count = "facade_tool_call_duration_seconds_count"
        assert value(during, count, domain="skills") == value(before, count, domain="skills") + 2
        assert value(during, "facade_tool_call_duration_seconds_sum", domain="skills") > value(
            before, "facade_tool_call_duration_seconds_sum", domain="skills"
        )
        legacy = {"agent": "francis", "era": "2025-11-25"}
        assert value(during, "facade_tools_list_total", **legacy) == value(before, "facade_tools_list_total", **legacy) + 1
        assert value(during, "facade_cards_pending") == value(before, "facade_cards_pending") + 1
        assert value(during, "facade_sessions_open") >= value(before, "facade_sessions_open") + 1

        assert operator(server, "POST", f"/api/cards/{card_id}/approve").status_code == 200
        approved = scrape(server)
        assert value(approved, "facade_cards_pending") == value(before, "facade_cards_pending")
        assert value(approved, "facade_elevations_active") == value(before, "facade_elevations_active") + 1
        assert value(approved, "facade_sessions_open") == value(before, "facade_sessions_open")  # the client closed its session
        assert operator(server, "DELETE", f"/api/conversations/{conversation}").status_code == 200
        assert value(scrape(server), "facade_elevations_active") == value(before, "facade_elevations_active")

    def test_listed_bytes_are_the_tools_array_served(self, server: ServerProcess) -> None:
        """The bytes counted are exactly those of the tools array in the response body."""
        labels = {"agent": "atlas", "era": "2026-07-28"}
        before = value(scrape(server), "facade_tools_list_bytes_total", **labels)
        response = httpx2.post(
            server.url,
            content=modern_body("tools/list", {}),
            headers={**modern_headers("tools/list"), "Authorization": f"Bearer {DEV['atlas']}"},
            timeout=60,
        )
        body = response.content
        start = body.index(b'"tools":') + len(b'"tools":')
        tools = json.loads(body)["result"]["tools"]
        array = json.dumps(tools, separators=(",", ":"), ensure_ascii=False).encode()
        assert body[start : start + len(array)] == array  # the array as it stood on the wire
        after = value(scrape(server), "facade_tools_list_bytes_total", **labels)
        assert after - before == len(array) > 10_000

    def test_an_identity_failure_counts_without_an_agent(self, server: ServerProcess) -> None:
        before = value(scrape(server), "facade_tool_calls_total", agent="unknown", domain="skills", outcome="identity")
        with httpx2.Client(timeout=60) as http:
            session = legacy_open(http, server.url, {"Authorization": f"Bearer {DEV['runtime']}"})
            # A runtime's call must say which agent it is for; this one injects a token that is no agent's.
            http.post(
                server.url,
                content=json.dumps(
                    {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "skills.tool_search", "arguments": {"query": "x", "auth_token": "not-a-token"}}}
                ),
                headers={**ACCEPT, **session},
            )
            http.delete(server.url, headers=session)
        after = value(scrape(server), "facade_tool_calls_total", agent="unknown", domain="skills", outcome="identity")
        assert after == before + 1


class TestRegistry:
    """One registry per service: nothing is shared through prometheus_client's global one."""

    def test_two_services_count_apart(self) -> None:
        first, second = Metrics(), Metrics()
        first.called("atlas", "files", "ok", 0.01)
        assert value(parse(first.render().decode()), "facade_tool_calls_total", agent="atlas", domain="files", outcome="ok") == 1
        assert value(parse(second.render().decode()), "facade_tool_calls_total", agent="atlas", domain="files", outcome="ok") == 0

    def test_database_errors_are_counted_by_the_engine_but_not_conflicts(self) -> None:
        metrics = Metrics()
        engine = create_engine("sqlite://")
        metrics.watch_database(engine)
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
            connection.execute(text("INSERT INTO t VALUES (1)"))
        with pytest.raises(OperationalError), engine.connect() as connection:
            connection.execute(text("SELECT * FROM missing"))
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(text("INSERT INTO t VALUES (1)"))
        samples = parse(metrics.render().decode())
        assert value(samples, "facade_database_errors_total", kind="OperationalError") == 1
        assert value(samples, "facade_database_errors_total", kind="IntegrityError") == 0

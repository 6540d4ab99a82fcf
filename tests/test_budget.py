"""The context budget: measured where a tokenizer can count, labelled where it is estimated."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx2
import pytest
from mcp_types import LATEST_PROTOCOL_VERSION

from facade.access.elevation import MemoryElevations
from facade.catalogue.agents import load_agents
from facade.catalogue.disclosure import always_loaded
from facade.catalogue.discovery import discover
from facade.catalogue.schema import compact_json
from facade.catalogue.served import Served, ServedCatalogues
from facade.catalogue.views import Views
from facade.reports.budget import agent_budget, domain_parts
from facade.tokencount import bundled_name, count, count_exact, count_parts
from facade.settings import DEMO_AGENTS, DEMO_BUDGET
from tests.support import DEV, ServerProcess, raw_call, raw_list
from tests.test_economy import REPO_AGENTS, facade

REGISTRY = discover()
SERVED = ServedCatalogues(REGISTRY)
DEMO = load_agents(DEMO_AGENTS, REGISTRY, environ={})


def agents_in(tmp_path: Path, body: str, name: str = "probe") -> Views:
    (tmp_path / name).mkdir(parents=True, exist_ok=True)
    (tmp_path / name / "agent.toml").write_text(f'name = "{name}"\n{body}')
    agents = load_agents(tmp_path, REGISTRY, environ={})
    return Views(REGISTRY, agents, MemoryElevations())


class TestSegments:
    """Sources, windows, elevations, overshoot and missing files."""

    def test_measured_with_a_bundled_tokenizer(self, tmp_path: Path) -> None:
        views = agents_in(tmp_path, 'context_window = 32000\ntokenizer = "qwen3"\n[apps]\nfiles = "core"\n')
        (tmp_path / "probe" / "SYSTEM.md").write_text("You are a careful assistant.\n")
        report = agent_budget(views, views.agents["probe"], None)
        seg = report["segments"]
        assert seg["base"]["source"] == "estimate"
        assert seg["apps"]["source"] == "measured" and seg["system_prompt"]["source"] == "measured"
        assert seg["system_prompt"]["tokens"] == count_exact("You are a careful assistant.\n", "qwen3")
        assert seg["free"]["tokens"] == 32000 - report["used"]

    def test_estimated_without_one_and_says_so(self, tmp_path: Path) -> None:
        views = agents_in(tmp_path, 'context_window = 8000\ntokenizer = "gemma"\n[apps]\nfiles = "core"\n')
        report = agent_budget(views, views.agents["probe"], None)
        assert report["segments"]["apps"]["source"] == "estimate"
        assert any("'gemma' cannot be loaded" in n for n in report["notes"])

    def test_null_window(self, tmp_path: Path) -> None:
        views = agents_in(tmp_path, '[apps]\nfiles = "core"\n')
        report = agent_budget(views, views.agents["probe"], None)
        assert report["model_window"] is None and report["segments"]["free"]["tokens"] is None
        assert report["over_budget"] is False and report["overshoot"] is None

    def test_elevation_raises_apps_by_the_domains_full_tools(self, tmp_path: Path) -> None:
        views = agents_in(tmp_path, 'context_window = 64000\ntokenizer = "o200k_base"\n[apps]\nfiles = "core"\nprojects = "core"\n')
        agent = views.agents["probe"]
        before = agent_budget(views, agent, "c")["segments"]["apps"]["domains"]
        views.elevations.grant("probe", "c", "files")
        after = agent_budget(views, agent, "c")["segments"]["apps"]["domains"]
        files_before, files_after = before[0], after[0]
        assert files_before["domain"] == "files" and files_after["mode"] == "full"
        full = [c for c in REGISTRY if c.domain == "files" and c.tier == "full"]
        assert files_after["tools"] - files_before["tools"] == len(full)
        assert files_after["tokens"] > files_before["tokens"]
        assert before[1] == after[1]  # projects untouched
        assert agent_budget(views, agent, "other")["segments"]["apps"]["domains"] == before

    def test_over_budget_with_overshoot(self, tmp_path: Path) -> None:
        views = agents_in(tmp_path, 'context_window = 2000\ntokenizer = "o200k_base"\n[apps]\nfinance = "full"\n')
        report = agent_budget(views, views.agents["probe"], None)
        assert report["over_budget"] and report["overshoot"] == report["used"] - 2000 > 0
        assert report["segments"]["free"]["tokens"] < 0

    def test_missing_workspace_file_counts_zero_and_is_named(self, tmp_path: Path) -> None:
        views = agents_in(tmp_path, 'context_window = 8000\n[apps]\nfiles = "core"\n')
        report = agent_budget(views, views.agents["probe"], None)
        files = {f["file"]: f for f in report["segments"]["system_prompt"]["files"]}
        assert files["SYSTEM.md"]["missing"] and files["SYSTEM.md"]["tokens"] == 0
        assert any("SYSTEM.md" in n and "missing" in n for n in report["notes"])


class TestTheServedArray:
    """The apps segment counts exactly the array tools/list serves — the latest era's wire form,
    the array `facade check` counts — cut per domain at the separators; for an agent that
    discloses by search, the always-loaded part of it, the rest reported as deferred."""

    def test_apps_is_the_served_wire_for_each_demo_agent(self) -> None:
        assert {"atlas", "francis", "infra", "pocket"} <= set(DEMO)
        for agent in DEMO.values():
            elevations = MemoryElevations()
            views = Views(REGISTRY, DEMO, elevations)
            elevations.grant(agent.name, "elevated", next(iter(agent.apps)))
            for conversation in (None, "elevated"):
                apps = agent_budget(views, agent, conversation)["segments"]["apps"]
                view = views.view(agent, conversation)
                wire = SERVED.serve(always_loaded(agent, view)).wire(LATEST_PROTOCOL_VERSION)
                disclosure = apps["disclosure"]
                assert disclosure["mode"] == agent.disclosure
                if agent.disclosure == "search":
                    assert len(wire.tools) < 20 and disclosure["deferred"]["tools"] + len(wire.tools) == len(view)
                    assert disclosure["always_loaded"]["tokens"] == apps["tokens"] <= disclosure["always_loaded"]["limit"]
                else:
                    assert len(wire.tools) == len(view)
                exact = count(wire.json, agent.tokenizer, "json")
                assert (apps["era"], apps["bytes"], apps["tokens"], apps["source"]) == (
                    LATEST_PROTOCOL_VERSION, wire.bytes, exact.tokens, exact.source
                ), (agent.name, conversation)
                domains = apps["domains"]
                assert sum(d["bytes"] for d in domains) == wire.bytes
                assert sum(d["tokens"] for d in domains) == apps["tokens"]
                assert sum(d["tools"] for d in domains) == len(wire.tools)

    def test_budget_and_check_count_the_same_array(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "check", "--budget", str(DEMO_BUDGET), "--json", env=REPO_AGENTS)
        rows = {r["agent"]: r for r in json.loads(done.stdout)["rows"]}
        views = Views(REGISTRY, DEMO, MemoryElevations())
        for agent in DEMO.values():
            apps = agent_budget(views, agent, None)["segments"]["apps"]
            row = rows[agent.name]
            if agent.disclosure == "search":
                # The gate holds both: the listing (bytes, tokens) and what the model carries.
                assert apps["tokens"] == row["always_loaded"] and apps["disclosure"]["deferred"]["listed_tokens"] == row["tokens"]
                continue
            assert apps["bytes"] == row["bytes"]
            if bundled_name(agent.tokenizer):  # the gate counts with o200k where the agent has none
                assert apps["tokens"] == row["tokens"], agent.name

    def test_domain_slices_join_to_the_array(self) -> None:
        tools = tuple({"name": f"d{i}.t", "description": "é" * i, "inputSchema": {"type": "object"}} for i in range(4))
        wire = Served(tuple(t["name"] for t in tools), tools).wire()
        parts = domain_parts(wire, [1, 0, 3])
        assert "".join(parts) == wire.json and parts[1] == ""
        assert parts[0].startswith("[") and parts[0].endswith(",") and parts[2].endswith("]")
        _, shares = count_parts(parts, "o200k_base", "json")
        assert sum(shares) == count_exact(wire.json)


class TestSurfaces:
    """The API follows an elevation; the CLI prints the same numbers with a bar."""

    def test_api_follows_an_elevation(self, server: ServerProcess) -> None:
        conversation = f"budget-{uuid.uuid4().hex[:6]}"
        operator = {"Authorization": f"Bearer {DEV['operator']}"}
        url = f"{server.base}/api/agents/francis/budget?conversation_id={conversation}"
        before = httpx2.get(url, headers=operator).json()
        held = raw_call(
            server.url,
            "skills.elevate",
            {"domain": "files", "reason": "budget test"},
            {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": conversation},
        )
        httpx2.post(f"{server.base}/api/cards/{held['structuredContent']['card_id']}/approve", headers=operator, timeout=60)
        after = httpx2.get(url, headers=operator).json()
        assert after["segments"]["apps"]["tokens"] > before["segments"]["apps"]["tokens"]
        assert {d["domain"]: d["mode"] for d in after["segments"]["apps"]["domains"]}["files"] == "full"
        assert httpx2.get(url, headers={"Authorization": f"Bearer {DEV['francis']}"}).status_code == 200
        assert httpx2.get(url, headers={"Authorization": f"Bearer {DEV['atlas']}"}).status_code == 403
        httpx2.delete(f"{server.base}/api/conversations/{conversation}", headers=operator)

    def test_api_counts_the_bytes_a_client_receives(self, server: ServerProcess) -> None:
        operator = {"Authorization": f"Bearer {DEV['operator']}"}
        for name in ("atlas", "francis", "infra"):
            apps = httpx2.get(f"{server.base}/api/agents/{name}/budget", headers=operator).json()["segments"]["apps"]
            received = compact_json(raw_list(server.url, DEV[name], "modern"))
            assert apps["bytes"] == len(received.encode("utf-8")), name

    def test_cli(self, tmp_path: Path) -> None:
        env = {"FACADE_AGENTS_DIR": str(DEMO_AGENTS)}
        report = json.loads(facade(tmp_path, "budget", "francis", "--json", env=env).stdout)
        assert report["model_window"] == 32768 and report["tokenizer"] == "qwen3"
        text = facade(tmp_path, "budget", "atlas", env=env).stdout
        assert "tokens used of 80000" in text and "estimate" in text and "~" in text
        missing = facade(tmp_path, "budget", "nobody", env=env)
        assert missing.returncode == 2 and "unknown agent 'nobody'" in missing.stderr

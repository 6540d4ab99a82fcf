"""Catalogue economy: one source for the mode, deny-lists, TOOLS.md, the trace and the gate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from facade.reports.check import agreement_problem
from facade.serving.service import build_service
from facade.reports.denylist import runtime_tool_name
from facade.access.elevation import MemoryElevations
from facade.settings import DEMO_AGENTS, DEMO_BUDGET, TOOLS_TEMPLATE, Settings
from facade.catalogue.views import Views
from tests.support import base_env


def facade(workdir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "facade.cli", *args],
        cwd=workdir,
        env={**os.environ, **base_env(workdir), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    workdir = tmp_path_factory.mktemp("economy")
    env = base_env(workdir)
    return build_service(
        Settings(
            agents_dir=Path(env["FACADE_AGENTS_DIR"]),
            data_dir=Path(env["FACADE_DATA_DIR"]),
            tools_template=TOOLS_TEMPLATE,
        )
    )


class TestOneSourceForTheMode:
    """tools/list, tools/call, the deny-list and TOOLS.md agree for every agent × domain ×
    (elevated or not) — all of them are computed from effective_mode."""

    def test_every_case_agrees(self, service) -> None:  # type: ignore[no-untyped-def]
        cases = 0
        for agent in service.agents.values():
            for domain in [None, *agent.apps]:
                elevations = MemoryElevations()
                views = Views(service.registry, service.agents, elevations)
                if domain is not None:
                    elevations.grant(agent.name, "c", domain)
                    assert views.modes(agent, "c")[domain] == "full"
                    assert views.modes(agent, "other") == views.modes(agent, None)
                assert agreement_problem(service, views, agent.name, "c") is None
                cases += 1
        assert cases >= len(service.agents) * 2

    def test_an_elevation_shrinks_the_deny_list(self, service) -> None:  # type: ignore[no-untyped-def]
        from facade.reports.denylist import deny_names

        elevations = MemoryElevations()
        views = Views(service.registry, service.agents, elevations)
        francis = service.agents["francis"]
        before = deny_names(views, francis, "c")
        elevations.grant("francis", "c", "files")
        after = deny_names(views, francis, "c")
        hidden_files = [c for c in service.registry if c.domain == "files" and c.tier == "full"]
        assert len(before) - len(after) == len(hidden_files) > 0


class TestDenylist:
    """`facade denylist` in the runtime's own spelling and three formats."""

    def test_formats_and_complement(self, tmp_path: Path, service) -> None:  # type: ignore[no-untyped-def]
        openclaw = json.loads(facade(tmp_path, "denylist", "francis").stdout)
        plain = json.loads(facade(tmp_path, "denylist", "francis", "--format", "json").stdout)
        lines = facade(tmp_path, "denylist", "francis", "--format", "lines").stdout.split()
        assert openclaw["tools"]["deny"] == plain["deny"] == lines and lines
        visible = [runtime_tool_name("facade", c.name) for c in service.views.view(service.agents["francis"], None)]
        everything = [runtime_tool_name("facade", c.name) for c in service.registry]
        assert sorted(lines + visible) == sorted(everything) and not set(lines) & set(visible)
        assert all(n.startswith("facade__") and "." not in n and len(n) <= 64 for n in lines)

    def test_server_name_is_mangled_too(self, tmp_path: Path) -> None:
        names = facade(tmp_path, "denylist", "francis", "--format", "lines", "--server-name", "my.facade").stdout.split()
        assert names and all(n.startswith("my-facade__") for n in names)

    def test_bad_input(self, tmp_path: Path) -> None:
        unknown = facade(tmp_path, "denylist", "nobody")
        bad_format = facade(tmp_path, "denylist", "atlas", "--format", "yaml")
        assert unknown.returncode == 2 and "unknown agent 'nobody'" in unknown.stderr
        assert bad_format.returncode == 2 and "unknown format 'yaml'" in bad_format.stderr
        assert "Traceback" not in unknown.stderr + bad_format.stderr


class TestToolsMd:
    """TOOLS.md states the shared rules once, with the agent's apps and modes."""

    def test_render_and_write(self, tmp_path: Path) -> None:
        text = facade(tmp_path, "tools-md", "francis").stdout
        assert "`auth_token` and `conversation_id`" in text and "ignored" in text
        assert "never copy arguments from an earlier call" in text
        assert "**files** (core)" in text and "**skills** (full)" in text
        assert "skills.elevate" in text
        written = facade(tmp_path, "tools-md", "francis", "--write")
        assert written.returncode == 0
        assert (tmp_path / "agents" / "francis" / "TOOLS.md").read_text() == text


REPO_AGENTS = {"FACADE_AGENTS_DIR": str(DEMO_AGENTS)}


class TestGate:
    """`facade check` passes on the committed budget and names what grew or broke."""

    def test_passes_on_the_committed_budget(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "check", "--budget", str(DEMO_BUDGET), env=REPO_AGENTS)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "ok: within budget" in done.stdout

    def test_growth_fails_and_names_the_agent(self, tmp_path: Path) -> None:
        budget = DEMO_BUDGET.read_text()
        tight = tmp_path / "tight.toml"
        tight.write_text(_set(budget, "atlas", "tools", 1))
        done = facade(tmp_path, "check", "--budget", str(tight), "--json", env=REPO_AGENTS)
        report = json.loads(done.stdout)
        assert done.returncode == 1 and not report["ok"]
        assert any(p.startswith("budget: atlas is served") and "over its budget of 1" in p for p in report["problems"])

    def test_lint_catches_a_repeated_sentence(self, tmp_path: Path) -> None:
        done = facade(
            tmp_path,
            "check",
            "--budget",
            str(DEMO_BUDGET),
            env={"FACADE_DOMAINS": "tests.fixtures.chatty_domain", **REPO_AGENTS},
        )
        assert done.returncode == 1
        assert "lint: this sentence appears in 5 descriptions" in done.stdout

    def test_a_domain_announced_by_wire_names_agrees(self, tmp_path: Path) -> None:
        # The conformance fixtures are announced as `test_*`, not by their names, and are in no
        # agent's apps: every agent's deny-list names them as the runtime lists them.
        env = {"FACADE_DOMAINS": "tests.fixtures.conformance_domain", **REPO_AGENTS}
        done = facade(tmp_path, "check", "--budget", str(DEMO_BUDGET), "--json", env=env)
        report = json.loads(done.stdout)
        assert [p for p in report["problems"] if p.startswith("agreement:")] == [], report["problems"][:3]
        assert done.returncode == 0 and report["ok"], report["problems"]
        lines = facade(tmp_path, "denylist", "atlas", "--format", "lines", env=env).stdout.split()
        assert "facade__test_simple_text" in lines and "facade__conformance-simple_text" not in lines

    def test_malformed_budget(self, tmp_path: Path) -> None:
        bad = tmp_path / "bad.toml"
        bad.write_text("[floors]\ncapabilities = -1\n")
        done = facade(tmp_path, "check", "--budget", str(bad))
        assert done.returncode == 2 and done.stderr.startswith("error: budget file")
        missing = facade(tmp_path, "check", "--budget", str(tmp_path / "none.toml"))
        assert missing.returncode == 2 and "not found" in missing.stderr


def _set(budget: str, agent: str, measure: str, value: int) -> str:
    head, _, tail = budget.partition(f"[agents.{agent}]\n")
    lines = tail.split("\n")
    lines = [f"{measure} = {value}" if line.startswith(f"{measure} =") and i < 4 else line for i, line in enumerate(lines)]
    return head + f"[agents.{agent}]\n" + "\n".join(lines)

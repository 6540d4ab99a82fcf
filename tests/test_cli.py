"""The command line: readable output, and one clear line (exit 2) for every mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from facade.catalogue.discovery import discover
from facade.settings import DEMO_AGENTS
from tests.test_economy import facade


class TestCatalogue:
    """`facade catalogue` counts by domain and tier, or shows an agent's view."""

    def test_json_counts(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "catalogue", "--json")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        registry = discover()
        assert report["capabilities"] == len(registry)
        for name, domain in registry.domains.items():
            row = report["domains"][name]
            assert row["core"] == sum(c.tier == "core" for c in domain.capabilities)
            assert row["full"] == sum(c.tier == "full" for c in domain.capabilities)

    def test_agent_view(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "catalogue", "--agent", "francis")
        assert done.returncode == 0, done.stderr
        assert "agent francis (" in done.stdout and "files=core" in done.stdout

    def test_unknown_agent(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "catalogue", "--agent", "nobody")
        assert done.returncode == 2
        assert done.stderr.startswith("error: unknown agent 'nobody'") and "Traceback" not in done.stderr


class TestConfigErrors:
    """A broken agent file or setting stops the server with the offender named."""

    def test_bad_agent_file(self, tmp_path: Path) -> None:
        facade(tmp_path, "catalogue")  # lays out the agents folder
        (tmp_path / "agents" / "atlas" / "agent.toml").write_text('name = "atlas"\n[apps]\nwarp = "full"\n')
        done = facade(tmp_path, "serve")
        assert done.returncode == 2
        assert "agent.toml: unknown domain(s) warp" in done.stderr and "Traceback" not in done.stderr

    def test_bad_setting(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "serve", env={"FACADE_MAX_BODY_BYTES": "-1"})
        assert done.returncode == 2 and "max_body_bytes" in done.stderr

    def test_bad_domain_module(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "catalogue", env={"FACADE_DOMAINS": "no.such.module"})
        assert done.returncode == 2 and "'no.such.module' failed to import" in done.stderr


class TestDatabase:
    """`facade db upgrade` applies every domain's migrations, and again is a no-op."""

    def test_upgrade_twice(self, tmp_path: Path) -> None:
        for _ in range(2):
            done = facade(tmp_path, "db", "upgrade")
            assert done.returncode == 0, done.stderr
            assert "is up to date" in done.stdout
        assert (tmp_path / "data" / "facade.db").exists()

    def test_upgrade_needs_no_agents(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "db", "upgrade", env={"FACADE_AGENTS_DIR": str(tmp_path / "none")})
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "data" / "facade.db").exists()


class TestSeeding:
    """Demo data goes only where the demo was asked for (`--demo`, FACADE_SEED)."""

    @pytest.mark.parametrize("demo", [False, True])
    def test_only_the_demo_is_seeded(self, tmp_path: Path, demo: bool) -> None:
        from sqlalchemy import text

        from facade.serving.service import build_service, prepare_database
        from facade.settings import Settings

        settings = Settings(data_dir=tmp_path / "data", agents_dir=DEMO_AGENTS)
        service = build_service(settings.for_demo() if demo else settings)
        try:
            prepare_database(service)
            with service.engine.connect() as db:
                projects = db.execute(text("SELECT count(*) FROM projects_project")).scalar_one()
        finally:
            service.engine.dispose()
        assert (projects > 0) is demo

    def test_the_demo_takes_the_packaged_agents_unless_told(self, tmp_path: Path) -> None:
        from facade.settings import Settings

        assert Settings().for_demo().agents_dir == DEMO_AGENTS and not Settings().seed
        assert Settings(agents_dir=tmp_path).for_demo().agents_dir == tmp_path


class TestInit:
    """`facade init DIR` writes a starter deployment, and never over one."""

    def test_writes_a_deployment_that_loads(self, tmp_path: Path) -> None:
        import tomllib

        from facade.catalogue.agents import load_agents
        from facade.reports.check import load_budget
        from facade.settings import Settings

        done = facade(tmp_path, "init", "new")
        assert done.returncode == 0, done.stderr
        folder = tmp_path / "new"
        assert set(tomllib.loads((folder / "facade.toml").read_text())) <= set(Settings.model_fields)
        agents = load_agents(folder / "agents", discover(), environ={})
        assert set(load_budget(folder / "catalogue-budget.toml").agents) == set(agents) == {"assistant"}

    @pytest.mark.parametrize("present", ["facade.toml", "catalogue-budget.toml", "catalogue.lock", "agents"])
    def test_refuses_a_folder_that_holds_any_part(self, tmp_path: Path, present: str) -> None:
        folder = tmp_path / "old"
        folder.mkdir()
        if present == "agents":
            (folder / present).mkdir()
        else:
            (folder / present).write_text("mine\n")
        done = facade(tmp_path, "init", "old")
        assert done.returncode == 2 and "already exists; nothing was written" in done.stderr
        assert "Traceback" not in done.stderr and sorted(p.name for p in folder.iterdir()) == [present]

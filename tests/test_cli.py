"""The command line: readable output, and one clear line (exit 2) for every mistake."""

from __future__ import annotations

import json
from pathlib import Path

from facade.catalogue.discovery import discover
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

"""The command line: readable output, and one clear line for every mistake — exit 2 for usage
(a flag, a setting, an agent file), 1 for a runtime failure (the database, Redis, the port)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from facade.catalogue.discovery import discover
from facade.settings import DEMO_AGENTS
from tests.support import base_env
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
        assert done.returncode == 2
        assert one_line(done) == "error: FACADE_MAX_BODY_BYTES=-1: must be a positive number of bytes"

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


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The only line on stderr, which must not be a traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


class TestStartErrors:
    """What stops `facade serve` is one line that says what to change, before any banner."""

    def test_a_port_out_of_range(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "serve", "--port", "99999")
        assert done.returncode == 2
        assert one_line(done) == "error: --port 99999: Input should be less than or equal to 65535"

    def test_a_database_url_without_its_driver(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "serve", env={"FACADE_DATABASE_URL": "postgres://sam:pw@127.0.0.1/facade"})
        assert done.returncode == 2
        line = one_line(done)
        assert line.startswith("error: FACADE_DATABASE_URL=postgres://") and "write postgresql+psycopg://" in line
        assert "pw" not in line

    def test_a_database_url_sqlalchemy_cannot_load(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "db", "upgrade", env={"FACADE_DATABASE_URL": "mysql://sam@127.0.0.1/facade"})
        assert done.returncode == 2
        assert "FACADE_DATABASE_URL=" in one_line(done) and "cannot be used" in done.stderr

    def test_postgresql_unreachable(self, tmp_path: Path) -> None:
        port = closed_port()
        url = f"postgresql+psycopg://sam:pw@127.0.0.1:{port}/facade"
        done = facade(tmp_path, "serve", "--port", str(closed_port()), env={"FACADE_DATABASE_URL": url})
        assert done.returncode == 1
        line = one_line(done)
        assert line.startswith(f"error: the database at postgresql+psycopg://sam:***@127.0.0.1:{port}/facade cannot be reached")
        assert line.endswith("start it, or point FACADE_DATABASE_URL at one that runs")

    def test_redis_unreachable(self, tmp_path: Path) -> None:
        port = closed_port()
        done = facade(tmp_path, "serve", "--port", str(closed_port()), env={"FACADE_REDIS_URL": f"redis://127.0.0.1:{port}/0"})
        assert done.returncode == 1
        line = one_line(done)
        assert line.startswith(f"error: Redis at redis://127.0.0.1:{port}/0 cannot be reached")
        assert line.endswith("start it, or correct or unset FACADE_REDIS_URL")

    def test_a_port_in_use(self, tmp_path: Path) -> None:
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            port = holder.getsockname()[1]
            done = facade(tmp_path, "serve", "--port", str(port))
        assert done.returncode == 1
        assert one_line(done) == f"error: port {port} on 127.0.0.1 is in use; stop what holds it, or choose another with --port / FACADE_PORT"

    def test_the_banner_comes_once_the_port_listens(self, tmp_path: Path) -> None:
        port = closed_port()
        env = {**os.environ, **base_env(tmp_path)}
        process = subprocess.Popen(
            [sys.executable, "-m", "facade.cli", "serve", "--port", str(port)], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True
        )
        watchdog = threading.Timer(300, process.kill)  # a server that never announces must not hang the test
        watchdog.start()
        try:
            assert process.stderr is not None
            banner = None
            for line in process.stderr:  # ends when the process does
                if '"serving"' in line and json.loads(line).get("event") == "serving":
                    banner = json.loads(line)
                    break
            assert banner is not None, f"no banner; the server exited with {process.poll()}"
            socket.create_connection(("127.0.0.1", port), timeout=30).close()
        finally:
            watchdog.cancel()
            process.terminate()
            process.wait(60)
        base = f"http://127.0.0.1:{port}"
        assert banner["mcp"] == f"{base}/mcp" and banner["dashboard"] == f"{base}/dashboard"
        assert banner["data_dir"] == str(Path(env["FACADE_DATA_DIR"]).resolve())
        assert banner["database"] == "sqlite"
        assert banner["development_tokens"] is True and "operator" in banner["development_token_for"]
        assert banner["runtime_list_bytes"] > 10_000  # the development runtime token: its list built at start
        from facade.cli.httpstack import http_stack

        assert (banner["loop"], banner["http"]) == (http_stack().loop, http_stack().http)

    @pytest.mark.parametrize("args", [["serve", "--no-such-flag"], ["no-such-command"]])
    def test_a_usage_error_is_2(self, tmp_path: Path, args: list[str]) -> None:
        done = facade(tmp_path, *args)
        assert done.returncode == 2 and "Traceback" not in done.stderr

    def test_version(self, tmp_path: Path) -> None:
        from importlib.metadata import version

        done = facade(tmp_path, "--version")
        assert done.returncode == 0 and done.stdout == f"facade {version('facade')}\n"


def closed_port() -> int:
    """A loopback port nothing listens on (bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class TestListeningSocket:
    """`facade serve` binds its port itself (so a port in use is one line before any banner)."""

    def test_it_is_tcp_with_nagle_off(self) -> None:
        """asyncio turns Nagle off only on sockets that say they are TCP; a socket made with
        proto 0 left every response's body waiting ~40 ms for a delayed ACK (bench_serve.py)."""
        import socket

        from facade.cli.listen import bind

        sock = bind("127.0.0.1", 0)
        try:
            assert sock.proto == socket.IPPROTO_TCP
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            sock.close()

"""The package as a pip user gets it (issue 14): a wheel built from this checkout, installed into
a fresh virtual environment, and run from empty folders that know nothing of the checkout —
`facade init`, `facade db upgrade`, `facade serve` with a real MCP client over HTTP,
`facade tools-md`, `facade check`, and the demo with `--demo`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from facade.settings import Settings
from tests.support import REPO, LoopbackServer, mcp_client

pytestmark = pytest.mark.anyio
# Building and installing take ~30 s with a warm pip cache, starting a server ~20 s; each step is bounded.
STEP_SECONDS = 600
UNSHIPPED = (".git", ".venv", "build", "*.egg-info", "__pycache__", ".facade", "node_modules", "test-artifacts", ".pytest_cache")


@dataclass(frozen=True)
class Installed:
    """A fresh virtual environment holding only the wheel and its declared dependencies."""

    bin: Path
    scratch: Path

    def run(self, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "facade"), *args], cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=STEP_SECONDS
        )

    def folder(self, name: str) -> Path:
        """An empty folder outside the checkout."""
        path = self.scratch / name
        path.mkdir()
        return path


def clean_env() -> dict[str, str]:
    """This process's environment without anything that points at the checkout or sets Facade."""
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    return {k: v for k, v in os.environ.items() if not k.startswith("FACADE_") and k not in dropped}


def step(*argv: str | Path, cwd: Path) -> None:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=STEP_SECONDS)
    assert done.returncode == 0, f"{' '.join(map(str, argv))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("package")
    # Built from a copy: pip builds in the source tree, whose stale build/ would reach the wheel.
    source = root / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*UNSHIPPED))
    step(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", root / "dist", source, cwd=root)
    (wheel,) = (root / "dist").glob("facade-*.whl")
    # This pip installs into the new environment (--python): seeding it with its own pip costs ~8 s.
    step(sys.executable, "-m", "venv", "--without-pip", root / "venv", cwd=root)
    venv_python = root / "venv" / "bin" / "python"
    step(sys.executable, "-m", "pip", "--python", venv_python, "install", "--quiet", wheel, cwd=root)
    scratch = root / "folders"
    scratch.mkdir()
    return Installed(root / "venv" / "bin", scratch)


@dataclass
class InstalledServer(LoopbackServer):
    """`facade serve` of the installed wheel; its log beside the folder, which stays as it was."""

    def setup(self) -> dict[str, str]:
        return {}

    @property
    def log_path(self) -> Path:
        return self.workdir.parent / f"{self.workdir.name}.log"

    def launch(self) -> LoopbackServer:
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [*self.argv, "--port", str(self.port)], cwd=self.workdir, env=clean_env(), stdout=self._log, stderr=subprocess.STDOUT
        )
        return self


async def projects_of(server: LoopbackServer, token: str) -> tuple[set[str], int]:
    """The tools the agent is listed, and how many projects `projects.project_list` counts."""
    async with mcp_client(server.url, token) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("projects.project_list", {})
    assert not result.is_error, result
    return tools, result.structured_content["total"]


class TestInstalledWheel:
    """Everything a person needs comes inside the wheel."""

    def test_the_wheel_is_what_runs(self, installed: Installed) -> None:
        folder = installed.folder("which")
        done = subprocess.run(
            [str(installed.bin / "python"), "-c", "import facade, domains; print(facade.__file__); print(domains.__file__)"],
            cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
        venv = installed.bin.parent.resolve()
        assert all(Path(line).resolve().is_relative_to(venv) for line in done.stdout.split()), done.stdout

    def test_the_demo_archives_are_inside(self, installed: Installed) -> None:
        """The seeds unpack them (scripts/demo_files.py): a wheel without them has no demo files."""
        script = (
            "import importlib, zipfile\n"
            "for name in ('documents', 'photos'):\n"
            "    seed = importlib.import_module(f'domains.{name}.seed')\n"
            "    print(seed.ARCHIVE, len(zipfile.ZipFile(seed.ARCHIVE).namelist()))\n"
        )
        done = subprocess.run(
            [str(installed.bin / "python"), "-c", script], cwd=installed.folder("archives"), env=clean_env(),
            capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
        venv = installed.bin.parent.resolve()
        for line in done.stdout.splitlines():
            path, members = line.rsplit(" ", 1)
            assert Path(path).resolve().is_relative_to(venv) and int(members) > 5, line
        assert len(done.stdout.splitlines()) == 2, done.stdout

    def test_an_empty_folder_says_what_to_run(self, installed: Installed) -> None:
        done = installed.run(installed.folder("empty"), "serve", "--port", "9")
        assert done.returncode == 2, done.stderr
        assert "facade init DIR" in done.stderr and "--demo" in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr

    def test_migrations_need_no_agents(self, installed: Installed) -> None:
        folder = installed.folder("migrate")
        done = installed.run(folder, "db", "upgrade")
        assert done.returncode == 0, done.stderr
        assert "is up to date" in done.stdout and (folder / ".facade" / "facade.db").exists()

    async def test_a_starter_deployment_serves_without_demo_data(self, installed: Installed) -> None:
        folder = installed.folder("deployment")
        done = installed.run(folder.parent, "init", folder.name)
        assert done.returncode == 0, done.stderr
        written = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        assert written == {"facade.toml", "catalogue-budget.toml", "catalogue.lock", "agents/assistant/agent.toml", "agents/assistant/SYSTEM.md"}
        # The config file speaks the settings' own names (FACADE_* without the prefix).
        assert set(tomllib.loads((folder / "facade.toml").read_text())) <= set(Settings.model_fields)
        before = (folder / "agents/assistant/agent.toml").read_text()
        again = installed.run(folder.parent, "init", folder.name)
        assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr
        assert (folder / "agents/assistant/agent.toml").read_text() == before

        assert installed.run(folder, "db", "upgrade").returncode == 0
        server = InstalledServer(folder, argv=[str(installed.bin / "facade"), "serve"]).start()
        try:
            tools, projects = await projects_of(server, "facade-dev-assistant")
        finally:
            server.stop()
        assert "projects.project_list" in tools and "skills.elevate" in tools
        assert projects == 0  # nothing is seeded without --demo

        md = installed.run(folder, "tools-md", "assistant")
        assert md.returncode == 0 and "**projects**" in md.stdout, md.stderr
        check = installed.run(folder, "check")
        assert check.returncode == 0, check.stdout + check.stderr
        assert "ok: within budget" in check.stdout and "no catalogue lock" not in check.stdout

    async def test_the_demo_runs_from_an_empty_folder(self, installed: Installed) -> None:
        folder = installed.folder("demo")
        server = InstalledServer(folder, argv=[str(installed.bin / "facade"), "serve", "--demo"]).start()
        try:
            tools, projects = await projects_of(server, "facade-dev-francis")
        finally:
            server.stop()
        assert "projects.project_list" in tools and projects > 0  # the demo data, seeded
        assert not (folder / "agents").exists()  # the packaged demo agents, not a copy
        check = installed.run(folder, "check", "--demo")
        assert check.returncode == 0 and "ok: within budget" in check.stdout, check.stdout + check.stderr

"""docs/plugins.md is real: its code blocks, written out exactly as the page shows them, are a
domain that loads through its entry point and through FACADE_DOMAINS, passes its own harness
test, is served, listed and called over MCP, and passes `facade check`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import mcp_types as types
import pytest

import facade.catalogue.discovery as discovery
from facade.settings import DEMO_BUDGET
from tests.support import DEV, REPO, ServerProcess, base_env, mcp_client, text_of
from tests.test_economy import facade

GUIDE = REPO / "docs" / "plugins.md"
# A file of the guide: a fenced block whose first line names it, `# path/of/the/file`.
BLOCK = re.compile(r"^```(?:python|toml)\n# (\S+)\n(.*?)^```$", re.S | re.M)
FILES = {
    "pyproject.toml",
    "glossary/__init__.py",
    "glossary/settings.py",
    "glossary/tables.py",
    "glossary/terms.py",
    "glossary/seed.py",
    "glossary/migrations/0001_glossary_initial.py",
    "agents/glossarist/agent.toml",
    "tests/test_glossary.py",
}


def guide_files() -> dict[str, str]:
    """Each file the guide shows, as it shows it (its naming first line included)."""
    return {path: f"# {path}\n{body}" for path, body in BLOCK.findall(GUIDE.read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guide's distribution, written into a folder of its own."""
    folder = tmp_path_factory.mktemp("guide") / "facade-glossary"
    for path, text in guide_files().items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def importable(plugin: Path) -> Iterator[Path]:
    """The guide's package on this process's import path, imported once (its table joins the
    shared metadata, which a second import would refuse), and gone again afterwards."""
    from facade.kit import Base

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(plugin))
        yield plugin
    for name in [m for m in sys.modules if m == "glossary" or m.startswith("glossary.")]:
        del sys.modules[name]
    if "glossary_term" in Base.metadata.tables:
        Base.metadata.remove(Base.metadata.tables["glossary_term"])


def plugin_env(plugin: Path) -> dict[str, str]:
    return {"FACADE_DOMAINS": "glossary", "PYTHONPATH": os.pathsep.join([str(plugin), str(REPO)])}


class TestThePage:
    """The page holds the whole domain, and the README points to it."""

    def test_every_file_is_on_the_page(self) -> None:
        assert set(guide_files()) == FILES

    def test_the_readme_links_it(self) -> None:
        assert "(docs/plugins.md)" in (REPO / "README.md").read_text(encoding="utf-8")


class TestLoading:
    """Through the entry point the page declares, and through FACADE_DOMAINS."""

    def test_facade_domains(self, importable: Path) -> None:
        registry = discovery.discover(["glossary"])
        assert [(c.name, c.tier, int(c.approval)) for c in registry if c.domain == "glossary"] == [
            ("glossary.term_define", "core", 1),
            ("glossary.term_export", "full", 0),
        ]
        assert "glossary" in registry.third_party
        assert not [w for w in registry.warnings if "glossary" in w]  # every tier declared

    def test_installed_its_entry_point_is_found(self, plugin: Path, tmp_path: Path) -> None:
        """`pip install` of the page's distribution (into a folder of its own, not this venv):
        the facade finds it through the `facade.domains` group, no setting needed."""
        site = tmp_path / "site"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(plugin)],
            capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert not (site / "tests").exists()  # the distribution ships the package alone
        listed = facade(tmp_path, "catalogue", "--json", env={"PYTHONPATH": os.pathsep.join([str(site), str(REPO)])})
        assert listed.returncode == 0, listed.stderr
        assert json.loads(listed.stdout)["domains"]["glossary"] == {"default_mode": "core", "core": 1, "full": 1, "total": 2}


class TestItsOwnTest:
    """The page's test, run as its author would run it."""

    def test_passes(self, plugin: Path) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(plugin), str(plugin / "tests")],
            cwd=plugin,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), str(REPO)])},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
        assert "4 passed" in done.stdout


def with_glossarist(workdir: Path, plugin: Path) -> None:
    """The tests' agents plus the page's glossarist."""
    agents = Path(base_env(workdir)["FACADE_AGENTS_DIR"])
    (agents / "glossarist").mkdir(exist_ok=True)
    (agents / "glossarist" / "agent.toml").write_text((plugin / "agents" / "glossarist" / "agent.toml").read_text())


class TestServed:
    """`facade serve` with the domain: listed in its default mode, both tools called once the
    operator approved an elevation; `facade check` passes."""

    @pytest.mark.anyio
    async def test_listed_and_called(self, plugin: Path, tmp_path: Path) -> None:
        with_glossarist(tmp_path, plugin)
        server = ServerProcess(tmp_path, env=plugin_env(plugin)).start()
        try:
            headers = {"X-Conversation-Id": "guide-1"}
            asked: list[str] = []

            async def user_accepts(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
                asked.append(params.message)
                return types.ElicitResult(action="accept", content={})

            async with mcp_client(server.url, "facade-dev-glossarist", headers=headers, elicitation_callback=user_accepts) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert "glossary.term_define" in tools and "glossary.term_export" not in tools
                assert tools["glossary.term_define"].meta == {"facade/approval": 1}  # the user is asked first
                defined = await client.call_tool("glossary.term_define", {"term": "plugin", "definition": "A domain from elsewhere."})
                assert not defined.is_error, text_of(defined)
                assert len(asked) == 1 and "glossary.term_define" in asked[0]  # by the server, through elicitation
                held = await client.call_tool("skills.elevate", {"domain": "glossary", "reason": "export the glossary"})
                assert not held.is_error, text_of(held)
                approve = f"{server.base}/api/cards/{held.structured_content['card_id']}/approve"
                assert httpx2.post(approve, headers={"Authorization": f"Bearer {DEV['operator']}"}, timeout=60).status_code == 200
                assert "glossary.term_export" in {t.name for t in (await client.list_tools()).tools}
                exported = await client.call_tool("glossary.term_export", {})
                assert not exported.is_error, text_of(exported)
                assert {"term": "plugin", "definition": "A domain from elsewhere."} in exported.structured_content["terms"]
        finally:
            server.stop()

    def test_check_passes(self, plugin: Path, tmp_path: Path) -> None:
        with_glossarist(tmp_path, plugin)
        lock = tmp_path / "catalogue.lock"
        lock.write_text((REPO / "catalogue.lock").read_text())
        args = ["check", "--json", "--budget", str(DEMO_BUDGET), "--lock", str(lock)]
        accepted = facade(tmp_path, *args, "--update-lock", env=plugin_env(plugin))
        assert accepted.returncode == 0, accepted.stdout
        done = facade(tmp_path, *args, env=plugin_env(plugin))
        report = json.loads(done.stdout)
        assert done.returncode == 0 and report["ok"], report["problems"]
        assert "glossarist" in [row["agent"] for row in report["rows"]]
        assert any(w.startswith("budget: agent glossarist has no entry") for w in report["warnings"])

"""Settings: flags over the environment over facade.toml over the defaults; every name a model
declares, every other `FACADE_*` name an error; `facade settings` and the README's table from
the same models; FACADE_DATA_DIR holds everything the server writes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.catalogue.discovery import discover
from facade.errors import ConfigError, RegistryError
from facade.kit import Domain, settings_reader
from facade.kit.domain_settings import use_server_context
from facade.reports.settings import declared, render_markdown
from facade.settings import load_settings
from tests.support import DEV, REPO, free_port, mcp_client, text_of, write_agents
from tests.test_cli import one_line
from tests.test_economy import facade

REGISTRY = discover()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder with no FACADE_* variable but the agents."""
    for name in list(os.environ):
        if name.upper().startswith("FACADE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    use_server_context(Path(".facade"), {})


class TestPrecedence:
    """Flags, then the environment, then facade.toml, then the defaults."""

    def test_each_source_beats_the_next(self, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        assert load_settings().port == 8765
        (workdir / "facade.toml").write_text('port = 9001\nhost = "127.0.0.2"\n')
        assert (load_settings().port, load_settings().host) == (9001, "127.0.0.2")
        monkeypatch.setenv("FACADE_PORT", "9002")
        assert (load_settings().port, load_settings().host) == (9002, "127.0.0.2")
        assert load_settings(port=9003).port == 9003

    def test_a_named_config_file(self, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (workdir / "elsewhere.toml").write_text("port = 9004\n")
        assert load_settings(config="elsewhere.toml").port == 9004
        monkeypatch.setenv("FACADE_CONFIG", "elsewhere.toml")
        assert load_settings().port == 9004
        with pytest.raises(ConfigError, match=r"the config file missing.toml \(--config\) does not exist"):
            load_settings(config="missing.toml")

    def test_a_domain_setting_from_the_file_ranks_below_the_environment(self, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        from domains.files.settings import settings as files
        from domains.mail.settings import settings as mail

        (workdir / "facade.toml").write_text('files_root = "from-file"\nmail_from = "file@example.com"\n')
        settings = load_settings()
        from facade.settings import file_values

        use_server_context(settings.data_dir, file_values(settings.config))
        assert (files().root, mail().sender) == (Path("from-file"), "file@example.com")
        monkeypatch.setenv("FACADE_FILES_ROOT", "from-env")
        assert files().root == Path("from-env")

    def test_a_domain_folder_follows_the_data_folder(self, workdir: Path) -> None:
        from domains.files.settings import settings as files

        use_server_context(workdir / "data", {})
        assert files().root == workdir / "data" / "files"

    def test_a_bad_value_names_where_it_came_from(self, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (workdir / "facade.toml").write_text("port = 70000\n")
        with pytest.raises(ConfigError, match=r"^facade.toml: port = 70000: Input should be less than or equal to 65535$"):
            load_settings()
        monkeypatch.setenv("FACADE_DATABASE_URL", "postgres://sam:secret@db/facade")
        with pytest.raises(ConfigError) as caught:
            load_settings(port=1)
        assert "secret" not in str(caught.value) and "write postgresql+psycopg://" in str(caught.value)


class TestUnknownNames:
    """A misspelt setting is an error naming the closest valid one, not silently ignored."""

    def test_a_misspelt_variable(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "serve", env={"FACADE_PROT": "18440"})
        assert done.returncode == 2
        assert one_line(done) == "error: unknown setting FACADE_PROT; did you mean FACADE_PORT?"

    def test_a_misspelt_domain_variable(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "catalogue", env={"FACADE_FILES_ROTO": "x"})
        assert done.returncode == 2
        assert one_line(done) == "error: unknown setting FACADE_FILES_ROTO; did you mean FACADE_FILES_ROOT?"

    def test_a_misspelt_key_in_the_file(self, tmp_path: Path) -> None:
        (tmp_path / "facade.toml").write_text("prot = 18440\n")
        done = facade(tmp_path, "serve")
        assert done.returncode == 2
        assert one_line(done) == "error: unknown setting prot in facade.toml; did you mean port?"

    def test_names_read_beside_the_server_are_known(self, tmp_path: Path) -> None:
        env = {
            "FACADE_REQUIRE_SERVICES": "1",
            "FACADE_HOST_MODEL": "qwen3:4b",
            "FACADE_TOKEN_ATLAS": "t",
            "FACADE_URL": "http://127.0.0.1:1/mcp",
            "FACADE_MAIL_FROM": "ops@example.com",
        }
        done = facade(tmp_path, "settings", env=env)
        assert done.returncode == 0, done.stderr


class TestListing:
    """`facade settings`: every setting, its source and value, secrets masked."""

    def test_sources_values_and_masks(self, tmp_path: Path) -> None:
        (tmp_path / "facade.toml").write_text('files_max_read_bytes = 4096\nruntime_tokens = "rt-secret"\n')
        env = {
            "FACADE_OPERATOR_TOKEN": "op-secret",
            "FACADE_DATABASE_URL": "postgresql+psycopg://sam:pw-secret@127.0.0.1:5432/facade",
        }
        done = facade(tmp_path, "--config", "facade.toml", "settings", env=env)
        assert done.returncode == 0, done.stderr
        listed = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}
        assert set(listed) == {d.variable for d in declared(REGISTRY)}
        assert listed["FACADE_FILES_MAX_READ_BYTES"] == ["facade.toml", "4096"]
        assert listed["FACADE_OPERATOR_TOKEN"] == ["environment", "****"]
        assert listed["FACADE_RUNTIME_TOKENS"] == ["facade.toml", "****"]
        assert listed["FACADE_PORT"] == ["default", "8765"]
        assert listed["FACADE_DATA_DIR"][0] == "environment"  # the tests' own data folder
        assert "secret" not in done.stdout

    def test_every_setting_is_described(self) -> None:
        undescribed = [d.variable for d in declared(REGISTRY) if not (d.info.description or "").strip()]
        assert undescribed == []

    def test_every_domain_that_reads_settings_declares_them(self) -> None:
        """A domain module calling settings_reader names its model on its Domain."""
        readers = {p.parent.name for p in (REPO / "domains").rglob("*.py") if "settings_reader(" in p.read_text()}
        declaring = {d.name for d in REGISTRY.domains.values() if d.settings is not None}
        assert readers and readers <= declaring

    def test_a_domain_settings_model_must_carry_its_prefix(self) -> None:
        class Wrong(BaseSettings):
            model_config = SettingsConfigDict(env_prefix="FACADE_OTHER_")

        settings_reader(Wrong)
        with pytest.raises(RegistryError, match=r"domain 'garden': its settings Wrong must be read from FACADE_GARDEN_\*"):
            Domain("garden", settings=Wrong)


class TestReadme:
    """The README's settings table is `facade settings --markdown`."""

    def test_the_table_is_generated(self) -> None:
        text = (REPO / "README.md").read_text()
        found = re.search(r"<!-- settings:begin -->\n(.*?)<!-- settings:end -->", text, re.S)
        assert found, "README.md has no <!-- settings:begin --> … <!-- settings:end --> section"
        assert found.group(1) == render_markdown(REGISTRY), "regenerate it with `facade settings --markdown`"

    def test_the_command_prints_it(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "settings", "--markdown")
        assert done.returncode == 0, done.stderr
        assert done.stdout == render_markdown(REGISTRY)


def contained_env(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A working folder, a data folder beside it, and an environment that sets no folder but
    FACADE_DATA_DIR (and the agents, which the server only reads). The demo is seeded: its
    seeds write into the domains' folders, the writes most likely to stray."""
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    agents = write_agents(tmp_path / "agents")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("FACADE_")}
    env |= {
        "FACADE_DATA_DIR": str(data),
        "FACADE_AGENTS_DIR": str(agents),
        "FACADE_SEED": "true",
        "FACADE_LOG_JSON": "true",
        "PYTHONPATH": str(REPO),
    }
    return work, data, env


def wait_healthy(process: subprocess.Popen[bytes], base: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        try:
            if httpx2.get(f"{base}/healthz", timeout=1).status_code < 500:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"not healthy in {timeout} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def assert_contained(work: Path, data: Path) -> None:
    assert list(work.iterdir()) == [], "the server wrote into the working folder"
    written = {p.name for p in data.iterdir()}
    assert {"facade.db", "files", "photos", "documents"} <= written, written


class TestDataFolder:
    """FACADE_DATA_DIR holds everything the server writes: nothing lands in the working folder."""

    @pytest.mark.anyio
    async def test_serve(self, tmp_path: Path) -> None:
        work, data, env = contained_env(tmp_path)
        port = free_port()
        with open(tmp_path / "serve.log", "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "facade.cli", "serve", "--port", str(port)], cwd=work, env=env, stdout=log, stderr=log
            )
            try:
                wait_healthy(process, f"http://127.0.0.1:{port}")
                async with mcp_client(f"http://127.0.0.1:{port}/mcp", DEV["atlas"]) as client:
                    wrote = await client.call_tool("files.write", {"path": "notes/today.txt", "content": "hello"})
                assert not wrote.is_error, text_of(wrote)
            finally:
                stop(process)
        assert (data / "files" / "notes" / "today.txt").read_text() == "hello"
        assert_contained(work, data)

    @pytest.mark.anyio
    async def test_stdio(self, tmp_path: Path) -> None:
        work, data, env = contained_env(tmp_path)
        params = StdioServerParameters(command=sys.executable, args=["-m", "facade.cli", "stdio", "--agent", "atlas"], env=env, cwd=work)
        async with Client(params, mode="legacy") as client:
            wrote = await client.call_tool("files.write", {"path": "notes/today.txt", "content": "hello"})
        assert not wrote.is_error, text_of(wrote)
        assert (data / "files" / "notes" / "today.txt").read_text() == "hello"
        assert_contained(work, data)

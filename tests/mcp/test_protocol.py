"""The rest of the protocol through real clients over real HTTP, in both eras: progress on long
calls, elicitation (a capability asking its user, and approval level 1 asked by the server),
rich content, resources (each agent's TOOLS.md among them), prompts and completions.

The server loads the conformance fixtures (tests/fixtures/conformance_domain.py, a kit-only
third-party domain) through FACADE_DOMAINS; agent `prober` has that app, `atlas` does not."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from facade.host.permissions import PermissionRequest
from facade.host.tools import open_tools
from mcp import Client

from tests.mcp.test_stdio import facade_command
from tests.mcp.test_typescript import node_modules  # noqa: F401 - the TS SDK, installed once per machine
from tests.support import DEV, ServerProcess, base_env, mcp_client, text_of
from tests.test_elevation import api

FIXTURES = "tests.fixtures.conformance_domain"
PROBER = "facade-dev-prober"
TS_SCRIPT = Path(__file__).parent / "clients" / "protocol.mjs"
pytestmark = pytest.mark.anyio


@dataclass
class ProtocolServer(ServerProcess):
    """`facade serve` with the conformance fixtures and an agent, prober, that has them."""

    def setup(self) -> dict[str, str]:
        env = base_env(self.workdir)
        agent = self.workdir / "agents" / "prober"
        agent.mkdir(exist_ok=True)
        (agent / "agent.toml").write_text(
            'name = "prober"\ndescription = "Probes the protocol."\n\n[apps]\nconformance = "full"\nfiles = "core"\nbackups = "full"\nphotos = "full"\nskills = "default"\n'
        )
        return {**env, "FACADE_DOMAINS": FIXTURES}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProtocolServer]:
    proc = ProtocolServer(tmp_path_factory.mktemp("protocol")).start()
    yield proc
    proc.stop()


class Asked:
    """An elicitation callback that records each question and answers with `action`."""

    def __init__(self, action: str = "accept", content: dict[str, Any] | None = None) -> None:
        self.action = action
        self.content = content if content is not None else {}
        self.questions: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params)
        return types.ElicitResult(action=self.action, content=self.content if self.action == "accept" else None)


def stamps(server: ProtocolServer, action: str) -> list[dict[str, Any]]:
    entries = api(server, "GET", "/api/audit").json()["entries"]
    return [e for e in entries if e["subject"] == "conformance.stamp" and e["action"] == action]


class TestProgress:
    """A client that sends a progress token hears the call's progress before its result."""

    async def test_fixture_reports_increasing_progress(self, server: ProtocolServer, era: str) -> None:
        heard: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard.append((progress, total, message))

        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert not result.is_error, text_of(result)
        assert [p for p, _, _ in heard] == [0, 50, 100]
        assert {t for _, t, _ in heard} == {100}

    async def test_bulk_operation_reports_each_item(self, server: ProtocolServer, era: str) -> None:
        """`facade.kit.each` reports after every item: every bulk capability gets progress."""
        heard: list[tuple[float, float | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard.append((progress, total))

        items = ["a", "bb", "ccc", "dddd", "eeeee", "a"]
        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("conformance.bulk_count", {"items": items}, progress_callback=on_progress)
        assert result.structured_content["succeeded"] == len(items)
        assert heard == [(i, len(items)) for i in range(1, len(items) + 1)]


    async def test_backup_run_reports_each_file(self, server: ProtocolServer, era: str) -> None:
        """A real domain's long capability: a backup run reports each file it packs."""
        heard: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard.append((progress, total, message))

        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("backups.job_run", {"job_id": 1}, progress_callback=on_progress)
        assert not result.is_error, text_of(result)
        files = result.structured_content["run"]["file_count"]
        assert files >= 1 and [p for p, _, _ in heard] == list(range(1, files + 1))
        assert heard[-1] == (files, files, f"{files} of {files} files packed")


class TestElicitation:
    """A capability asks its user through the client, and gets the answer, in both eras."""

    async def test_answer_reaches_the_handler(self, server: ProtocolServer, era: str) -> None:
        asked = Asked(content={"username": "ada", "email": "ada@example.org"})
        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=asked) as client:
            result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        assert not result.is_error, text_of(result)
        assert [q.message for q in asked.questions] == ["Who are you?"]
        assert asked.questions[0].requested_schema["required"] == ["username", "email"]
        assert text_of(result) == 'User response: action=accept, content={"username": "ada", "email": "ada@example.org"}'

    async def test_three_questions_in_one_call(self, server: ProtocolServer, era: str) -> None:
        """The server's confirmation, then the handler's two questions: each asked once, and on
        2026-07-28 the earlier answers ride along, so the last round has them all."""
        asked: list[str] = []

        async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            asked.append(params.message)
            fields = list(params.requested_schema.get("properties", {}))
            return types.ElicitResult(action="accept", content={f: f"{f}!" for f in fields})

        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=answer) as client:
            result = await client.call_tool("conformance.survey", {})
        assert not result.is_error, text_of(result)
        assert len(asked) == 3 and "conformance.survey" in asked[0] and asked[1:] == ["First question", "Second question"]
        assert result.structured_content == {"first": {"a": "a!"}, "second": {"b": "b!"}, "actions": ["accept", "accept"]}

    async def test_client_that_cannot_ask(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        assert result.is_error
        assert "cannot ask its user" in text_of(result) and "elicitation" in text_of(result)


class TestApprovalOne:
    """An approval-1 capability runs only when the user behind the client accepts a summary of
    exactly what will run; a decline, or a client that cannot ask, refuses it; all audited."""

    async def test_runs_on_accept(self, server: ProtocolServer, era: str) -> None:
        label = f"ok-{uuid.uuid4().hex[:6]}"
        asked = Asked("accept")
        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=asked) as client:
            result = await client.call_tool("conformance.stamp", {"label": label})
        assert not result.is_error, text_of(result)
        assert result.structured_content["stamped"] == label
        (question,) = asked.questions
        assert "conformance.stamp" in question.message and label in question.message and "prober" in question.message
        assert any(e["agent"] == "prober" for e in stamps(server, "confirmed"))

    @pytest.mark.parametrize("action", ["decline", "cancel"])
    async def test_refused_unless_accepted(self, server: ProtocolServer, era: str, action: str) -> None:
        asked = Asked(action)
        before = len(stamps(server, f"{action}d"))
        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=asked) as client:
            refused = await client.call_tool("conformance.stamp", {"label": "never"})
            ran = await client.call_tool("conformance.bulk_count", {"items": ["x"]})  # the connection still works
        assert refused.is_error and f"the user {action}d running conformance.stamp; nothing ran" in text_of(refused)
        assert not ran.is_error
        assert len(asked.questions) == 1
        assert len(stamps(server, f"{action}d")) == before + 1

    async def test_nothing_ran_when_refused(self, server: ProtocolServer, era: str) -> None:
        """The count a stamp returns grows by exactly one across a refused call."""
        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=Asked("accept")) as yes:
            first = (await yes.call_tool("conformance.stamp", {"label": "one"})).structured_content["count"]
        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=Asked("decline")) as no:
            assert (await no.call_tool("conformance.stamp", {"label": "two"})).is_error
        async with mcp_client(server.url, PROBER, mode=era) as cannot:
            assert (await cannot.call_tool("conformance.stamp", {"label": "three"})).is_error
        async with mcp_client(server.url, PROBER, mode=era, elicitation_callback=Asked("accept")) as yes:
            second = (await yes.call_tool("conformance.stamp", {"label": "four"})).structured_content["count"]
        assert second == first + 1

    async def test_client_that_cannot_ask_is_refused(self, server: ProtocolServer, era: str) -> None:
        before = len(stamps(server, "unasked"))
        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("conformance.stamp", {"label": "never"})
        assert result.is_error
        text = text_of(result)
        assert "approval level 1" in text and "cannot ask its user" in text and "nothing ran" in text
        assert len(stamps(server, "unasked")) == before + 1


class TestContent:
    """A capability's content blocks arrive as MCP image, audio and resource content."""

    async def test_mixed_content(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("test_multiple_content_types", {})
        text, image, resource = result.content
        assert isinstance(text, types.TextContent) and text.text == "Multiple content types test:"
        assert isinstance(image, types.ImageContent) and base64.b64decode(image.data).startswith(b"\x89PNG")
        assert isinstance(resource, types.EmbeddedResource)
        assert json.loads(resource.resource.text) == {"test": "data", "value": 123}

    async def test_photo_thumbnail_is_an_image(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, PROBER, mode=era) as client:
            result = await client.call_tool("photos.thumbnail_get", {"photo_id": 1, "size": 128, "include_data": True})
        (image,) = result.content
        assert isinstance(image, types.ImageContent) and image.mime_type == "image/jpeg"
        assert base64.b64decode(image.data)[:3] == b"\xff\xd8\xff"  # a JPEG
        assert result.structured_content["photo_id"] == 1 and "data_base64" not in result.structured_content

    async def test_audio(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, PROBER, mode=era) as client:
            (audio,) = (await client.call_tool("test_audio_content", {})).content
        assert isinstance(audio, types.AudioContent) and base64.b64decode(audio.data)[:4] == b"RIFF"


class TestResources:
    """Each agent lists and reads its own TOOLS.md and its apps' resources, and nobody else's."""

    async def test_tools_md_is_the_agents_own(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, PROBER, mode=era) as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            read = await client.read_resource("facade://agents/prober/TOOLS.md")
        assert "facade://agents/prober/TOOLS.md" in uris and "test://static-text" in uris
        assert not [u for u in uris if u.startswith("facade://agents/") and "/prober/" not in u]
        served = api(server, "GET", "/api/agents/prober/tools-md").text
        assert read.contents[0].text == served and "conformance" in served

    async def test_tools_md_updated_by_an_elevation(self, server: ProtocolServer, era: str) -> None:
        """A client watching its TOOLS.md hears `resources/updated` when an approved elevation
        rewrites it: subscribed (2025-11-25) or listening for it (2026-07-28)."""
        uri = "facade://agents/prober/TOOLS.md"
        conversation = f"md-{era}-{uuid.uuid4().hex[:6]}"
        updated = anyio.Event()

        async def handler(message: Any) -> None:
            if isinstance(message, types.ResourceUpdatedNotification) and str(message.params.uri) == uri:
                updated.set()

        async def elevate(client: Client) -> None:
            held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "watch TOOLS.md change"})
            assert not held.is_error, text_of(held)
            assert api(server, "POST", f"/api/cards/{held.structured_content['card_id']}/approve").status_code == 200

        headers = {"X-Conversation-Id": conversation}
        async with mcp_client(server.url, PROBER, mode=era, headers=headers, message_handler=handler) as client:
            before = (await client.read_resource(uri)).contents[0].text
            if era == "legacy":
                await client.subscribe_resource(uri)
                await elevate(client)
                with anyio.fail_after(30):
                    await updated.wait()
            else:
                async with client.listen(resource_subscriptions=[uri]) as listening:
                    await elevate(client)
                    with anyio.fail_after(30):
                        async for event in listening:
                            if getattr(event, "uri", None) == uri:
                                break
            after = (await client.read_resource(uri)).contents[0].text
        assert before != after and "files" in after
        api(server, "DELETE", f"/api/conversations/{conversation}")

    async def test_other_agents_see_neither(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, DEV["atlas"], mode=era) as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            with pytest.raises(Exception, match="unknown resource"):
                await client.read_resource("facade://agents/prober/TOOLS.md")
            with pytest.raises(Exception, match="unknown resource"):
                await client.read_resource("test://static-text")
            prompts = (await client.list_prompts()).prompts
        assert uris == ["facade://agents/atlas/TOOLS.md"]
        assert prompts == []

    async def test_template_and_completion(self, server: ProtocolServer, era: str) -> None:
        async with mcp_client(server.url, PROBER, mode=era) as client:
            read = await client.read_resource("test://template/42/data")
            done = await client.complete(types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "par"})
            prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            with pytest.raises(Exception, match="arg2` is required"):
                await client.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
        assert json.loads(read.contents[0].text)["id"] == "42"
        assert done.completion.values == ["paris", "park", "party"]
        assert prompt.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'"


class TestHost:
    """The reference host answers the server's questions: the confirmation of a call its policy
    authorized, and a form through its Prompter (defaults offered as a yes/no question)."""

    async def test_confirmation_of_its_own_call(self, server: ProtocolServer, era: str) -> None:
        async with open_tools(server.url, agent="prober", token=PROBER, conversation_id=f"h-{uuid.uuid4().hex[:8]}", mode=era) as tools:
            outcome = await tools.call("conformance.stamp", {"label": "from-the-host"})
        assert not outcome.is_error, outcome.text
        assert outcome.data["stamped"] == "from-the-host"

    @pytest.mark.parametrize("says", [True, False, None], ids=["yes", "no", "nobody"])
    async def test_form_through_the_prompter(self, server: ProtocolServer, era: str, says: bool | None) -> None:
        asked: list[PermissionRequest] = []

        def prompter(request: PermissionRequest) -> bool:
            asked.append(request)
            return bool(says)

        chosen = prompter if says is not None else None
        async with open_tools(
            server.url, agent="prober", token=PROBER, conversation_id=f"h-{uuid.uuid4().hex[:8]}", mode=era, prompter=chosen
        ) as tools:
            outcome = await tools.call("test_elicitation_sep1034_defaults", {})
        if says:
            assert outcome.text.startswith("Elicitation completed: action=accept") and '"John Doe"' in outcome.text
            assert asked[0].tool == "test_elicitation_sep1034_defaults" and asked[0].reason == "Please review your details"
        else:
            assert outcome.text.startswith("Elicitation completed: action=decline")
            assert len(asked) == (1 if says is False else 0)


class TestBridge:
    """`facade bridge` passes a call's progress and the facade's questions down to its client."""

    async def test_progress_and_confirmation_through_the_bridge(self, server: ProtocolServer, tmp_path: Path) -> None:
        env = {"FACADE_URL": server.url, "FACADE_TOKEN": PROBER, "FACADE_CONVERSATION_ID": f"bridge-{uuid.uuid4().hex[:6]}"}
        heard: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard.append(progress)

        asked = Asked("accept")
        async with Client(facade_command(tmp_path, "bridge", env=env), mode="legacy", elicitation_callback=asked) as client:
            stamped = await client.call_tool("conformance.stamp", {"label": "via-bridge"})
            timed = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert not stamped.is_error, text_of(stamped)
        assert stamped.structured_content["stamped"] == "via-bridge" and "conformance.stamp" in asked.questions[0].message
        assert not timed.is_error and heard == [0, 50, 100]

    async def test_client_that_cannot_ask_through_the_bridge(self, server: ProtocolServer, tmp_path: Path) -> None:
        env = {"FACADE_URL": server.url, "FACADE_TOKEN": PROBER, "FACADE_CONVERSATION_ID": f"bridge-{uuid.uuid4().hex[:6]}"}
        async with Client(facade_command(tmp_path, "bridge", env=env), mode="legacy") as client:
            refused = await client.call_tool("conformance.stamp", {"label": "never"})
        assert refused.is_error and "cannot ask its user" in text_of(refused) and "nothing ran" in text_of(refused)


class TestTypeScriptClient:
    """The official TypeScript SDK client hears progress and answers an approval-1 question."""

    def test_progress_and_approval(self, server: ProtocolServer, node_modules: Path, tmp_path: Path) -> None:  # noqa: F811
        script = tmp_path / "protocol.mjs"
        shutil.copy(TS_SCRIPT, script)
        (tmp_path / "node_modules").symlink_to(node_modules)
        done = subprocess.run(["node", str(script), server.url, PROBER], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        assert [p["progress"] for p in report["progress"]] == [0, 50, 100]
        assert report["asked"] and "conformance.stamp" in report["asked"][0]
        assert report["stamped"] == "from-typescript" and report["declined_is_error"] is True

"""The loop, driven by the shared scripted model against a real `facade serve` over HTTP: tool
use, a denied tool, the step cap, repeated and unknown calls, a list_changed mid-conversation in
both protocol eras, and the fenced protocol with broken JSON."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from facade.host.messages import ToolSpec
from facade.host.permissions import Decision, PermissionPolicy, PermissionRequest, Rule
from facade.host.providers import FencedProvider, ModelRequest
from facade.host.providers.fenced import PROTOCOL
from facade.host.testing import ScriptedModel, call, say
from facade.host.trajectory import read_trajectory
from tests.host.conftest import Host
from tests.support import DEV, ServerProcess

pytestmark = pytest.mark.anyio
OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}


def last_result(request: ModelRequest) -> dict[str, Any]:
    """The latest tool result the model was shown."""
    return next(m for m in reversed(request.messages) if m["role"] == "tool")


def data_of(request: ModelRequest) -> Any:
    return json.loads(last_result(request)["content"])


class TestToolUse:
    """One question, one tool, one answer: two model calls, recorded exactly."""

    async def test_a_tool_turn(self, host: Host) -> None:
        model = ScriptedModel([call("projects.project_list", {}), lambda r: say(f"There are {data_of(r)['total']} projects.")])
        async with host(model) as loop:
            result = await loop.run("How many projects are there?")
        trajectory = read_trajectory(loop.session.trajectory_path)
        total = data_of(model.requests[1])["total"]
        assert total > 0 and result.answer == f"There are {total} projects." and not result.stopped
        first = model.requests[0]
        names = {t.name for t in first.tools}
        assert "projects.project_list" in names and "skills.elevate" in names
        assert not any("auth_token" in json.dumps(t.input_schema) for t in first.tools)  # the hook fills identity
        assert "You are Francis" in first.system.static and "# Tools for francis" in first.system.text
        assert [m["role"] for m in model.requests[1].messages] == ["user", "assistant", "tool"]
        assert last_result(model.requests[1])["is_error"] is False

        # A tool turn is two model calls, shown as such.
        assert [(c.call, c.tool_calls) for c in result.calls] == [(1, 1), (2, 0)]
        assert result.calls[1].usage.input_tokens > result.calls[0].usage.input_tokens

        kinds = [e["type"] for e in trajectory]
        assert kinds == ["session.started", "context.compiled", "model.completed", "tool.completed", "context.compiled", "model.completed", "session.ended"]
        compiled = [e["data"] for e in trajectory if e["type"] == "context.compiled"]
        for data, request in zip(compiled, model.requests, strict=True):
            sent = model.payload(request)
            assert (data["tools"], data["system"], data["messages"]) == (sent["tools"], sent["system"], sent["messages"])
        for written in (loop.session.trajectory_path, loop.session.path):
            assert DEV["francis"] not in written.read_text()  # the hook injects the token; nothing records it
        history = compiled[1]["history"]
        assert (history["tokenizer"], history["source"], history["sent"]) == ("qwen3", "measured", 3)  # francis's agent.toml
        assert trajectory[2]["data"]["usage"] == result.calls[0].usage.to_dict()
        assert trajectory[-1]["data"]["usage"] == (result.calls[0].usage + result.calls[1].usage).to_dict()

    async def test_repeated_and_unknown_calls_are_pointed_out(self, host: Host) -> None:
        model = ScriptedModel([
            call("projects.project_list", {"limit": 2}),
            call("projects.project_list", {"limit": 2}),
            call("projects.project_destroy", {"project_id": 1}),
            say("done"),
        ])
        async with host(model) as loop:
            result = await loop.run("list")
        repeat = last_result(model.requests[2])
        assert repeat["is_error"] and repeat["content"].startswith("You already called projects.project_list with exactly these arguments (step 1)")
        assert json.loads(last_result(model.requests[1])["content"])["projects"] == json.loads(repeat["content"].split("Its result was:\n")[1].split("\nUse that")[0])["projects"]
        unknown = last_result(model.requests[3])
        assert unknown["is_error"] and unknown["content"].startswith("There is no tool named projects.project_destroy. Did you mean ")
        assert "projects.project_delete" in unknown["content"].split("?")[0]
        assert [e.name for e in result.executed] == ["projects.project_list"]  # the repeat and the unknown never ran

    async def test_a_write_between_two_identical_calls_makes_the_second_real(self, host: Host) -> None:
        model = ScriptedModel([
            call("projects.project_list", {"limit": 200}),
            call("projects.project_create", {"name": "Loop write"}),
            call("projects.project_list", {"limit": 200}),
            say("done"),
        ])
        async with host(model) as loop:
            await loop.run("add one and list again")
        before, after = data_of(model.requests[1]), data_of(model.requests[3])
        assert after["total"] == before["total"] + 1


class TestPermissions:
    """A denial reaches the model as an error result, and nothing runs on the server."""

    async def test_prompt_without_a_prompter_is_denied(self, host: Host) -> None:
        policy = PermissionPolicy([Rule("projects.project_create", Decision.PROMPT)])
        # The second listing differs: a denied call changes nothing, so an identical one would be a repeat.
        model = ScriptedModel([call("projects.project_list", {"limit": 200}), call("projects.project_create", {"name": "Never"}), call("projects.project_list", {"limit": 199}), say("I could not.")])
        async with host(model, policy=policy) as loop:
            result = await loop.run("create a project")
            events = read_trajectory(loop.session.trajectory_path)
        denied = last_result(model.requests[2])
        assert denied["is_error"] and denied["content"].startswith("Permission denied: projects.project_create needs the user's approval")
        assert data_of(model.requests[3])["total"] == data_of(model.requests[1])["total"]  # nothing was created
        assert [(e.name, e.denied) for e in result.executed][1] == ("projects.project_create", True)
        assert [e["data"]["is_error"] for e in events if e["type"] == "tool.completed"] == [False, True, False]

    async def test_the_prompter_decides(self, host: Host) -> None:
        asked: list[PermissionRequest] = []

        def yes(request: PermissionRequest) -> bool:
            asked.append(request)
            return True

        policy = PermissionPolicy([Rule("projects.*", Decision.PROMPT), Rule("projects.project_list", Decision.ALLOW)])
        model = ScriptedModel([call("projects.project_create", {"name": "Asked first"}), say("created")])
        async with host(model, policy=policy, prompter=yes) as loop:
            await loop.run("create it")
        assert [(r.tool, r.arguments) for r in asked] == [("projects.project_create", {"name": "Asked first"})]
        assert not last_result(model.requests[1])["is_error"] and "Asked first" in last_result(model.requests[1])["content"]

    async def test_deny_rules_hold_for_parallel_calls(self, host: Host) -> None:
        policy = PermissionPolicy.of(deny=["projects.*_delete"])
        model = ScriptedModel([call("projects.project_delete", {"project_id": 1}), say("no")])
        async with host(model, policy=policy) as loop:
            await loop.run("delete project 1")
        result = last_result(model.requests[1])
        assert result["is_error"] and "not allowed in this session (the rule projects.*_delete=deny)" in result["content"]


def endless(request: ModelRequest) -> Any:
    """A model that never stops calling tools (different arguments each time, so no repeat)."""
    return call("projects.project_list", {"limit": len(request.messages)})


class TestStepCap:
    """At the cap the host stops and says what it found and where it stopped."""

    async def test_native_16_fenced_6_and_configured(self, host: Host) -> None:
        native = ScriptedModel([endless] * 40)
        async with host(native) as loop:
            result = await loop.run("loop forever")
        assert len(native.requests) == 16 and result.stopped and result.steps == 16

        fenced_inner = ScriptedModel([lambda r: '```tool\n{"tool": "projects.project_list", "args": {"limit": ' + str(len(r.messages)) + "}}\n```"] * 40)
        async with host(FencedProvider(fenced_inner)) as loop:
            result = await loop.run("loop forever")
        assert len(fenced_inner.requests) == 6 and result.stopped

        capped = ScriptedModel([endless] * 40)
        async with host(capped, max_steps=3) as loop:
            result = await loop.run("loop forever")
        assert len(capped.requests) == 3
        lines = result.answer.splitlines()
        assert lines[0] == "I stopped after 3 model steps, the limit for one request, without finishing."
        assert lines[1] == "What I found:" and all(line.startswith("- projects.project_list {\"limit\":") for line in lines[2:5])
        assert 'returned: {"projects":[{"id":' in lines[2]
        assert lines[5] == "Where I stopped: I had just called projects.project_list and had not yet read the result."
        assert loop.session.messages[-1] == {"role": "assistant", "content": result.answer}


class TestListChanged:
    """An elevation approved between two model calls reaches the very next one, in both eras."""

    async def test_approval_mid_conversation(self, host: Host, server: ServerProcess, era: str) -> None:
        full = {"files.tree", "files.grep", "files.read_many"}
        holder: dict[str, Any] = {}

        async def approve(request: ModelRequest) -> Any:
            card = data_of(request)["card_id"]
            seen = holder["tools"].changes
            async with httpx2.AsyncClient(headers=OPERATOR) as api:
                approved = await api.post(f"{server.base}/api/cards/{card}/approve", json={"reason": "ok", "by": "tests"})
            assert approved.status_code == 200
            await holder["tools"].wait_for_change(seen)
            return call("skills.card_status", {"card_id": card})

        model = ScriptedModel([
            call("skills.elevate", {"domain": "files", "reason": "the user wants a folder tree"}),
            approve,
            call("files.tree", {"path": "/", "max_depth": 1}),
            say("Here is the tree."),
        ])
        async with host(model, era=era) as loop:
            holder["tools"] = loop.tools
            result = await loop.run("Show me the folder tree.")
            fetches = loop.tools.fetches  # type: ignore[attr-defined]
        assert result.answer == "Here is the tree."
        assert not full & model.tool_names(0) and not full & model.tool_names(1)
        assert full <= model.tool_names(2) and full <= model.tool_names(3)
        assert fetches == 2  # once at the start, once after the change: not before every call
        tree = last_result(model.requests[3])
        assert not tree["is_error"], tree["content"]
        httpx2.delete(f"{server.base}/api/conversations/{loop.session.id}", headers=OPERATOR)


class TestFenced:
    """A model without function calling: broken JSON is sent back with what to fix, sloppy JSON
    is repaired, an HTML app is saved."""

    async def test_broken_then_sloppy_then_answer(self, host: Host) -> None:
        inner = ScriptedModel([
            'I will list them.\n```tool\n{"tool" "projects.project_list" "args" {"limit"}}\n```',
            "```tool\n{'tool': 'projects.project_list', 'args': {'limit': 3,},",
            lambda r: f"There are {json.loads(r.messages[-1]['content'].split(chr(10), 1)[1])['total']} projects.",
        ])
        async with host(FencedProvider(inner)) as loop:
            result = await loop.run("How many projects?")
        assert not result.stopped and result.steps == 3 and result.answer.startswith("There are ")
        for request in inner.requests:
            assert request.tools == [] and PROTOCOL in request.system.static
            assert "- projects.project_list: " in request.system.dynamic
        fix = inner.requests[1].messages[-1]
        assert fix["role"] == "user" and fix["content"].startswith("I could not read your tool call: the JSON is broken at character 8")
        returned = inner.requests[2].messages[-1]
        assert returned["role"] == "user" and returned["content"].startswith("Tool projects.project_list returned:\n")
        assert [e.arguments for e in result.executed] == [{"limit": 3}]

    async def test_an_html_app_is_saved_and_reported(self, host: Host) -> None:
        page = "<!DOCTYPE html><html><head><title>Project board</title></head><body>3 projects</body></html>"
        inner = ScriptedModel([f"Here you go:\n```html\n{page}\n```"])
        async with host(FencedProvider(inner)) as loop:
            result = await loop.run("Make me a project board page.")
        assert len(result.artifacts) == 1 and result.artifacts[0].read_text() == page
        assert result.answer == f"Here you go:\n[HTML app: Project board]\nApp saved to {result.artifacts[0]}"
        assert loop.session.messages[-1]["content"] == "Here you go:\n[HTML app: Project board]"


class TestResume:
    """A session reloaded from disk continues: same conversation, history, usage and trace."""

    async def test_second_run_continues_the_first(self, host: Host) -> None:
        first = ScriptedModel([call("projects.project_list", {"limit": 1}), say("One listed.")])
        async with host(first, session_id="resume-me") as loop:
            await loop.run("list one")
            usage = loop.session.ledger.cumulative
        second = ScriptedModel([say("Still here.")])
        async with host(second, session_id="resume-me") as loop:
            assert loop.session.ledger.cumulative == usage and loop.session.turn == 1
            await loop.run("are you there?")
        events = read_trajectory(loop.session.trajectory_path)
        assert [m["role"] for m in second.requests[0].messages] == ["user", "assistant", "tool", "assistant", "user"]
        assert [e["seq"] for e in events] == list(range(len(events)))
        started = [e["data"] for e in events if e["type"] == "session.started"]
        assert [s["resumed"] for s in started] == [False, True] and started[0]["conversation_id"] == "resume-me"


def test_tool_spec_reads_the_approval_meta() -> None:
    from mcp_types import Tool, ToolAnnotations

    from facade.host.tools import spec_of

    tool = Tool(name="mail.message_send", input_schema={"type": "object"}, annotations=ToolAnnotations(read_only_hint=False), _meta={"facade/approval": 1})
    assert spec_of(tool) == ToolSpec("mail.message_send", "", {"type": "object"}, approval=1, read_only=False)


class CountingClient:
    """Stands in for the MCP client: counts `tools/list` requests."""

    def __init__(self) -> None:
        self.lists = 0
        self.hook = type("Hook", (), {"conversation_id": "c"})()

    async def list_tools(self) -> list[Any]:
        from mcp_types import Tool

        self.lists += 1
        return [Tool(name="projects.project_list", input_schema={"type": "object"})]


async def test_the_list_is_fetched_when_stale_and_always_without_a_channel() -> None:
    from facade.host.tools import FacadeTools

    client = CountingClient()
    tools = FacadeTools("francis", client, None, "http://x")  # type: ignore[arg-type]
    for _ in range(3):
        await tools.tools()
    assert client.lists == 3  # no channel: before every model call
    tools.watching = True
    tools.mark_stale()
    for _ in range(3):
        await tools.tools()
    assert client.lists == 4 and tools.changes == 1  # a channel: only after a change

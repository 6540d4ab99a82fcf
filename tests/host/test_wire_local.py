"""Replays of real exchanges with llama-cpp-python 0.3.36's OpenAI-compatible server running
Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF) on this machine's CPU.

Every `tests/host/wire/openai_*_llamacpp_python_e2e_*.json` is real bytes: the request body the
host (or the script's probe, built by the adapter's own `payload`) sent and the response body the
server answered, captured by scripts/e2e_local.py's recording proxy between `facade run` and the
server, and saved unedited (`_recorded` says which run and request). Each is fed here through the
adapter's parse functions (facade/host/providers/openai.py, http.py) to pin what the host makes
of it, so CI replays them without the model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from facade.host.messages import ToolCall, ToolSpec, assistant, tool_result, user
from facade.host.names import from_provider
from facade.host.providers import ModelRequest, OpenAIProvider, SystemParts
from facade.host.providers.blocks import read_reply
from facade.host.providers.http import http_failure
from facade.host.providers.openai import parse_completion

WIRE = Path(__file__).parent / "wire"
URL = "http://127.0.0.1:8080/v1/chat/completions"


def recording(name: str) -> dict[str, Any]:
    return json.loads((WIRE / f"{name}.json").read_text(encoding="utf-8"))


def offered(record: dict[str, Any]) -> list[str]:
    """The tools the recorded request offered, under facade names."""
    return [from_provider(t["function"]["name"]) for t in record["request"].get("tools", [])]


def all_recordings() -> list[Path]:
    return sorted(WIRE.glob("openai_*_llamacpp_python_e2e_*.json"))


def test_there_are_recordings_and_each_is_a_real_exchange() -> None:
    paths = all_recordings()
    assert len(paths) >= 5
    for path in paths:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["_recorded"].startswith("scripts/e2e_local.py"), path.name
        assert record["request"]["model"] == "local" and record["request"]["messages"], path.name
        assert (record["status"] == 200) == path.name.startswith("openai_response_"), path.name


@pytest.mark.parametrize("path", [p for p in all_recordings() if p.name.startswith("openai_response_")], ids=lambda p: p.stem)
def test_every_answer_reads_with_its_usage_and_no_cache_figure(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    turn = parse_completion(record["response"], offered(record))
    usage = record["response"]["usage"]
    # llama-cpp-python reuses its KV cache (its log says "N prefix-match hit") but reports no
    # cached tokens over the wire: every prompt token is counted as fresh input.
    assert turn.usage.input_tokens == usage["prompt_tokens"] and turn.usage.cache_read_tokens == 0
    assert turn.usage.output_tokens == usage["completion_tokens"]
    assert turn.stop_reason == record["response"]["choices"][0]["finish_reason"]


class TestNullContent:
    """A tool turn's second request: the assistant message that made the call, then its result."""

    def conversation(self) -> ModelRequest:
        # The probe's conversation (scripts/e2e_local.py, probe()).
        call = ToolCall("call_1", "files.read", {"path": "notes/todo.txt"})
        spec = ToolSpec("files.read", "Read a text file.", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
        messages = [user("Read notes/todo.txt."), assistant("", [call]), tool_result(call, "# To do\n- [ ] Send the Q2 sales report to Dana\n", is_error=False)]
        return ModelRequest(SystemParts("You are a helpful assistant."), messages, [spec])

    def test_the_server_refuses_null_content_with_http_500(self) -> None:
        refused = recording("openai_error_llamacpp_python_e2e_null_content")
        asking = [m for m in refused["request"]["messages"] if m.get("tool_calls")]
        assert refused["status"] == 500 and asking and asking[0]["content"] is None
        error = http_failure("openai", refused["status"], json.dumps(refused["response"]), URL)
        # Said as the server's own validation error, and not taken for a context-length refusal.
        # (The server lists 7 errors, one per message type it tried; the one that matters,
        # "Input should be a valid string" for the assistant's content, comes after the first
        # 500 characters the host quotes.)
        assert "HTTP 500" in str(error) and "validation errors" in str(error)
        assert "Input should be a valid string" in refused["response"]["error"]["message"]
        assert error.kind is None

    def test_the_adapter_now_sends_the_body_the_server_accepted(self) -> None:
        # The refused body with its null set to "" by hand was accepted; so was the adapter's own
        # body once the adapter sent "" (recorded from the fixed adapter): the same messages.
        by_hand = recording("openai_response_llamacpp_python_e2e_probe_empty_content")
        fixed = recording("openai_response_llamacpp_python_e2e_probe_adapter_tool_turn")
        assert by_hand["status"] == fixed["status"] == 200
        body = OpenAIProvider("http://127.0.0.1:8080/v1", "local", max_tokens=48).payload(self.conversation())
        assert body["messages"] == by_hand["request"]["messages"] == fixed["request"]["messages"]
        assert all(m["content"] == "" for m in body["messages"] if m.get("tool_calls"))

    def test_a_reply_cut_at_the_token_cap_is_a_length_stop_that_runs_nothing(self) -> None:
        # The accepted request's reply: two JSON objects, the second cut off at max_tokens 48.
        record = recording("openai_response_llamacpp_python_e2e_probe_empty_content")
        turn = parse_completion(record["response"], offered(record))
        assert turn.stop_reason == "length" and turn.tool_calls == []


class TestToolsInThePrompt:
    def test_the_gguf_template_shows_the_tools_with_or_without_tool_choice(self) -> None:
        # With its default chat format (the GGUF's own Jinja template) the server renders the tools
        # either way: the same prompt, token for token. (The claim that tools vanish without
        # tool_choice holds for its `chatml-function-calling` format, not for this default.)
        bare = recording("openai_response_llamacpp_python_e2e_probe_no_tool_choice")
        auto = recording("openai_response_llamacpp_python_e2e_probe_tool_choice_auto")
        assert "tool_choice" not in bare["request"] and auto["request"]["tool_choice"] == "auto"
        assert bare["response"]["usage"]["prompt_tokens"] == auto["response"]["usage"]["prompt_tokens"]

    @pytest.mark.parametrize(
        ("name", "path"),
        [("openai_response_llamacpp_python_e2e_probe_no_tool_choice", "/home/user/notes/todo.txt"), ("openai_response_llamacpp_python_e2e_probe_tool_choice_auto", "notes/todo.txt")],
    )
    def test_a_bare_json_call_in_the_content_is_lifted_into_a_call(self, name: str, path: str) -> None:
        # The server returns no tool_calls: Qwen wrote {"name": "files-read", "arguments": {…}} as text.
        record = recording(name)
        assert not record["response"]["choices"][0]["message"].get("tool_calls")
        turn = parse_completion(record["response"], offered(record))
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("files.read", {"path": path})]
        assert turn.text == "" and turn.problem is None


class TestHostRequests:
    """Requests `facade run pocket … --provider openai` made, and what came back."""

    def test_a_json_block_call_from_a_real_task_is_lifted(self) -> None:
        record = recording("openai_response_llamacpp_python_e2e_native_text_tool_call")
        message = record["response"]["choices"][0]["message"]
        assert not message.get("tool_calls") and message["content"].startswith("```json")
        turn = parse_completion(record["response"], offered(record))
        assert [c.name for c in turn.tool_calls] == ["files.read"] and turn.text == ""
        # The model built the path from the host's working folder despite the prompt's note that
        # facade paths are the domain's own (issue 19 item 9): the facade answers that path, the
        # host does not rewrite it.
        assert turn.tool_calls[0].arguments["path"].endswith("notes/todo.txt")

    def test_the_host_request_carries_the_agents_tools_under_provider_names(self) -> None:
        record = recording("openai_response_llamacpp_python_e2e_native_text_tool_call")
        names = offered(record)
        assert {"files.read", "files.list", "skills.tool_search"} <= set(names)
        assert record["request"]["messages"][0]["role"] == "system"
        assert [m["role"] for m in record["request"]["messages"][1:]] == ["user"]


class TestFencedReplies:
    """Replies to `facade run pocket … --provider fenced`: no `tools` sent, the listing in the
    system prompt, the reply read by the fenced reader."""

    def read(self, name: str) -> tuple[dict[str, Any], Any]:
        record = recording(name)
        assert "tools" not in record["request"]
        listing = re.findall(r"^- ([a-z_]+\.[a-z_]+): ", record["request"]["messages"][0]["content"], re.M)
        assert {"files.read", "files.list", "skills.tool_search"} <= set(listing)
        return record, read_reply(record["response"]["choices"][0]["message"]["content"], listing)

    def test_a_tool_block_with_the_wrong_key_goes_back_to_the_model_with_the_form(self) -> None:
        # Prose, then a ```tool block whose call is under "app" instead of "tool".
        _, reading = self.read("openai_response_llamacpp_python_e2e_fenced_call")
        assert reading.calls == []
        assert reading.problem is not None and '"tool"' in reading.problem and "app, args" in reading.problem

    def test_the_corrected_bare_object_is_a_call(self) -> None:
        # The next reply: a bare {"tool": …, "args": …} object naming an offered tool.
        record, reading = self.read("openai_response_llamacpp_python_e2e_fenced_bare_call")
        assert [c.name for c in reading.calls] == ["files.read"] and reading.problem is None
        assert reading.calls[0].arguments["path"].endswith("notes/todo.txt")
        assert record["response"]["choices"][0]["finish_reason"] == "stop"

"""Provider adapters against recorded wire formats: the request each builds for the same neutral
conversation, what it sends over HTTP, and how it reads real responses (text, tool calls under
facade names, usage with its four kinds kept apart) — OpenAI-compatible (vLLM, Ollama,
llama.cpp), Anthropic, and the fenced protocol over an OpenAI-compatible endpoint."""

from __future__ import annotations

import email.utils
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest

from facade.host.messages import ToolSpec
from facade.host.providers import AnthropicProvider, FencedProvider, ModelRequest, OpenAIProvider, ProviderError, SystemParts, make_provider
from facade.host.providers.fenced import PROTOCOL
from facade.host.providers.http import Retry, retry_after, server_wait
from facade.host.providers.openai import openai_messages
from facade.host.testing import Answer, ScriptedServer, say
from facade.host.usage import Usage

pytestmark = pytest.mark.anyio
WIRE = Path(__file__).parent / "wire"


def wire(name: str) -> Any:
    return json.loads((WIRE / name).read_text(encoding="utf-8"))


def conversation() -> ModelRequest:
    data = wire("conversation.json")
    tools = [ToolSpec(**t) for t in data["tools"]]
    return ModelRequest(SystemParts(**data["system"]), data["messages"], tools)


class Recorder:
    """An HTTP client whose transport records each request and answers with a recorded body."""

    def __init__(self, status: int, body: Any) -> None:
        self.requests: list[httpx2.Request] = []
        self.status, self.body = status, body

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return httpx2.Response(self.status, json=self.body)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle))

    @property
    def sent(self) -> dict[str, Any]:
        return json.loads(self.requests[-1].content)


class Sleeps:
    """The retries' sleep, injected: records each wait instead of sleeping."""

    def __init__(self) -> None:
        self.waited: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waited.append(seconds)


def openai(recorder: Recorder | ScriptedServer | None = None, **kwargs: Any) -> OpenAIProvider:
    kwargs.setdefault("retry", Retry(sleep=Sleeps()))
    return OpenAIProvider(base_url="http://127.0.0.1:11434/v1/", model="qwen3:4b", max_tokens=1024, http=recorder.client() if recorder else None, **kwargs)


def anthropic(recorder: Recorder | ScriptedServer | None = None, **kwargs: Any) -> AnthropicProvider:
    kwargs.setdefault("retry", Retry(sleep=Sleeps()))
    return AnthropicProvider(model="claude-sonnet-4-5", api_key="sk-ant-test", max_tokens=1024, http=recorder.client() if recorder else None, **kwargs)


class TestOpenAI:
    """Chat completions: the body, the endpoint, and three servers' responses."""

    def test_the_body_is_the_recorded_format(self) -> None:
        assert openai().payload(conversation()) == wire("openai_request.json")

    def test_only_the_first_message_is_a_system_one_and_users_do_not_repeat(self) -> None:
        # Gemma's and Mistral's chat templates refuse a later system message or two user turns in
        # a row; the host's notes go to the user side, and the system prompt stays as built.
        history = [
            {"role": "system", "content": "<summary>Ana asked for the Q3 figures.</summary>"},
            {"role": "user", "content": "And the Harbour project?"},
            {"role": "system", "content": "…2 older messages omitted"},
            {"role": "user", "content": "Only the open tasks."},
        ]
        sent = openai_messages("You are Atlas.", history)
        assert sent == [
            {"role": "system", "content": "You are Atlas."},
            {"role": "user", "content": "<summary>Ana asked for the Q3 figures.</summary>\n\nAnd the Harbour project?\n\n…2 older messages omitted\n\nOnly the open tasks."},
        ]

    async def test_it_posts_the_body_and_reads_vllm_tool_calls_and_cached_tokens(self) -> None:
        recorder = Recorder(200, wire("openai_response_vllm.json"))
        turn = await openai(recorder, api_key="sk-local").complete(conversation())
        request = recorder.requests[0]
        assert str(request.url) == "http://127.0.0.1:11434/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer sk-local"
        assert recorder.sent == wire("openai_request.json")
        assert [(c.name, c.arguments, c.error) for c in turn.tool_calls] == [("projects.task_list", {"project_id": 3}, None)]
        assert turn.tool_calls[0].id == "chatcmpl-tool-1c9e0b2f" and turn.stop_reason == "tool_calls"
        # prompt_tokens counts the cached ones: 1843 = 307 fresh + 1536 read from the cache.
        assert turn.usage == Usage(input_tokens=307, output_tokens=28, cache_write_tokens=0, cache_read_tokens=1536)

    async def test_llamacpp_reports_its_cache_only_in_timings(self) -> None:
        recorder = Recorder(200, wire("openai_response_llamacpp.json"))
        turn = await openai(recorder).complete(conversation())
        assert "authorization" not in recorder.requests[0].headers  # a local server needs no key
        assert turn.text.startswith("Harbour is the only active project") and not turn.tool_calls
        assert turn.usage == Usage(input_tokens=58, output_tokens=24, cache_read_tokens=1843)

    async def test_llamacpp_tool_calls_with_reasoning_and_a_cache_hit(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_llamacpp_tool_calls.json"))).complete(conversation())
        assert turn.text == "" and turn.stop_reason == "tool_calls"  # the reasoning is not the answer
        assert [(c.id, c.name, c.arguments, c.error) for c in turn.tool_calls] == [("Vd3hTq0b8cFzK2mXy7LpR1sWnA4eGjU9", "projects.task_list", {"project_id": 3}, None)]
        # 1924 prompt tokens = 81 processed (timings.prompt_n) + 1843 reused from the slot's cache.
        assert turn.usage == Usage(input_tokens=81, output_tokens=41, cache_read_tokens=1843)

    async def test_openai_parallel_calls_and_cached_tokens(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_openai.json"))).complete(conversation())
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("projects.task_list", {"project_id": 3}), ("projects.project_get", {"project_id": 3})]
        assert turn.usage == Usage(input_tokens=290, output_tokens=52, cache_read_tokens=1920)

    async def test_ollama_parallel_calls_one_with_broken_arguments(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_ollama.json"))).complete(conversation())
        good, broken = turn.tool_calls
        assert (good.name, good.arguments, good.error) == ("projects.project_get", {"project_id": 3}, None)
        # `{"project_id":3,` has one sure repair (close the object): read as the fenced path reads it.
        assert (broken.name, broken.arguments, broken.error) == ("projects.task_list", {"project_id": 3}, None)
        assert turn.usage == Usage(input_tokens=1650, output_tokens=22)

    async def test_failures_say_what_to_change(self) -> None:
        with pytest.raises(ProviderError, match="check the base URL"):
            await openai(Recorder(404, {"error": "model 'qwen3:4b' not found"})).complete(conversation())
        with pytest.raises(ProviderError, match="no choices"):
            await openai(Recorder(200, {"id": "x", "choices": []})).complete(conversation())

        def refuse(request: httpx2.Request) -> httpx2.Response:
            raise httpx2.ConnectError("connection refused", request=request)

        offline = OpenAIProvider(base_url="http://127.0.0.1:9/v1", model="m", http=httpx2.AsyncClient(transport=httpx2.MockTransport(refuse)))
        with pytest.raises(ProviderError, match="is the model server running"):
            await offline.complete(conversation())

    def test_a_result_whose_call_was_dropped_becomes_a_note(self) -> None:
        request = conversation()
        orphaned = ModelRequest(request.system, [m for m in request.messages if m["role"] != "assistant"], request.tools)
        messages = openai().payload(orphaned)["messages"]
        # The omission marker and the two notes join the question: one user turn, as strict chat templates require.
        assert [m["role"] for m in messages] == ["system", "user"]
        marker, question, first_note, second_note = messages[1]["content"].split("\n\n", 3)
        assert marker == "…4 older messages omitted" and question.startswith("Which projects")
        assert first_note.startswith("[earlier result of projects.project_list]")
        assert second_note.startswith("[earlier result of projects.task_list]")


class TestAnthropic:
    """Messages API: cache_control at the boundary, tool_use / tool_result, usage."""

    def test_the_body_is_the_recorded_format(self) -> None:
        assert anthropic().payload(conversation()) == wire("anthropic_request.json")

    async def test_it_posts_the_body_and_reads_tool_use_and_cache_writes(self) -> None:
        recorder = Recorder(200, wire("anthropic_response_tool_use.json"))
        turn = await anthropic(recorder).complete(conversation())
        request = recorder.requests[0]
        assert str(request.url) == "https://api.anthropic.com/v1/messages"
        assert request.headers["x-api-key"] == "sk-ant-test" and request.headers["anthropic-version"] == "2023-06-01"
        assert recorder.sent == wire("anthropic_request.json")
        assert turn.text.startswith("Harbour is active") and turn.stop_reason == "tool_use"
        assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [("toolu_01A09q90qw90lq917835lq9", "projects.task_list", {"project_id": 3})]
        assert turn.usage == Usage(input_tokens=412, output_tokens=71, cache_write_tokens=1536, cache_read_tokens=0)

    async def test_a_read_and_a_write_in_one_call(self) -> None:
        turn = await anthropic(Recorder(200, wire("anthropic_response_cache_read_and_write.json"))).complete(conversation())
        assert turn.usage == Usage(input_tokens=21, output_tokens=29, cache_write_tokens=188, cache_read_tokens=1536)
        assert turn.usage.prompt_tokens == 21 + 188 + 1536

    async def test_a_cache_hit_is_a_read_not_input(self) -> None:
        turn = await anthropic(Recorder(200, wire("anthropic_response_text.json"))).complete(conversation())
        assert not turn.tool_calls and turn.stop_reason == "end_turn"
        assert turn.usage == Usage(input_tokens=95, output_tokens=40, cache_write_tokens=0, cache_read_tokens=1536)
        assert turn.usage.prompt_tokens == 95 + 1536

    async def test_an_api_error_is_reported_with_its_message(self) -> None:
        with pytest.raises(ProviderError, match="unexpected `tool_use_id`"):
            await anthropic(Recorder(400, wire("anthropic_error.json"))).complete(conversation())

    def test_no_static_part_means_no_cache_marker_and_the_first_turn_is_the_users(self) -> None:
        request = conversation()
        body = anthropic().payload(ModelRequest(SystemParts("", "only dynamic"), request.messages[2:], []))
        assert body["system"] == [{"type": "text", "text": "only dynamic"}] and "tools" not in body
        assert body["messages"][0] == {"role": "user", "content": [{"type": "text", "text": "(earlier messages omitted)"}]}


class TestFenced:
    """The fenced protocol over an OpenAI-compatible endpoint: no tools array, the protocol and
    the tool listing in the system prompt, results as user turns, the reply parsed."""

    async def test_request_and_reply(self) -> None:
        reply = {"choices": [{"message": {"role": "assistant", "content": "Let me check.\n```tool\n{'tool': 'projects.task_list', 'args': {'project_id': 3,},}\n```"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 900, "completion_tokens": 30}}
        recorder = Recorder(200, reply)
        turn = await FencedProvider(openai(recorder)).complete(conversation())
        sent = recorder.sent
        assert "tools" not in sent
        system = sent["messages"][0]["content"]
        assert PROTOCOL in system and '- projects.task_list: List tasks of a project.\n  args: {"type":"object"' in system
        assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "user"]
        assert sent["messages"][1]["content"] == "…4 older messages omitted\n\nWhich projects are active, and what are their tasks?"
        assert sent["messages"][2]["content"].startswith('```tool\n{"tool": "projects.project_list"')
        assert "Tool projects.task_list failed:\nproject_id" in sent["messages"][3]["content"]
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("projects.task_list", {"project_id": 3})]
        assert turn.usage == Usage(input_tokens=900, output_tokens=30) and turn.problem is None


class TestChoice:
    """make_provider reads what it is not given from the environment, and says what is missing."""

    def test_by_name_and_env(self) -> None:
        env = {"FACADE_HOST_BASE_URL": "http://127.0.0.1:8080/v1", "FACADE_HOST_MODEL": "gemma", "ANTHROPIC_API_KEY": "k", "FACADE_HOST_MAX_TOKENS": "512"}
        chosen = make_provider("openai", env=env)
        assert isinstance(chosen, OpenAIProvider) and (chosen.base_url, chosen.model, chosen.max_tokens) == ("http://127.0.0.1:8080/v1", "gemma", 512)
        fenced = make_provider("fenced", env=env)
        assert isinstance(fenced, FencedProvider) and not fenced.native_tools and fenced.model == "gemma"
        claude = make_provider("anthropic", model="claude-opus-4-1", env=env)
        assert isinstance(claude, AnthropicProvider) and (claude.model, claude.api_key, claude.max_tokens) == ("claude-opus-4-1", "k", 512)

    @pytest.mark.parametrize(
        ("kind", "env", "message"),
        [("openai", {}, "FACADE_HOST_MODEL"), ("anthropic", {}, "ANTHROPIC_API_KEY"), ("gemini", {}, "choose one of openai, anthropic, fenced")],
    )
    def test_what_is_missing(self, kind: str, env: dict[str, str], message: str) -> None:
        with pytest.raises(ProviderError, match=message):
            make_provider(kind, env=env)

    def test_cache_slot_and_retries_come_from_the_settings(self) -> None:
        env = {"FACADE_HOST_MODEL": "qwen", "FACADE_HOST_KEEP_CACHE": "true", "FACADE_HOST_SLOT": "2", "FACADE_HOST_RETRIES": "5", "ANTHROPIC_API_KEY": "k"}
        chosen = make_provider("openai", env=env)
        assert isinstance(chosen, OpenAIProvider) and (chosen.keep_cache, chosen.slot, chosen.retry.retries) == (True, 2, 5)
        plain = make_provider("openai", env={"FACADE_HOST_MODEL": "qwen"})
        assert isinstance(plain, OpenAIProvider) and (plain.keep_cache, plain.slot, plain.retry.retries) == (False, None, 3)
        claude = make_provider("anthropic", env=env)
        assert isinstance(claude, AnthropicProvider) and claude.retry.retries == 5

    def test_a_bad_value_names_its_variable_and_what_to_write(self) -> None:
        # Every variable's message is tested in tests/host/test_settings.py; here, that it reaches the caller.
        with pytest.raises(ProviderError, match=re.escape("FACADE_HOST_RETRIES='many': write a whole number of retries from 0 to 20")):
            make_provider("openai", env={"FACADE_HOST_MODEL": "qwen", "FACADE_HOST_RETRIES": "many"})


class TestKeepCache:
    """llama.cpp-family servers keep the prompt's KV cache when asked, in a slot when named."""

    def test_off_by_default_and_sent_when_asked(self) -> None:
        assert {"cache_prompt", "id_slot"}.isdisjoint(openai().payload(conversation()))
        assert openai(keep_cache=True).payload(conversation())["cache_prompt"] is True
        assert "id_slot" not in openai(keep_cache=True).payload(conversation())
        body = openai(keep_cache=True, slot=0).payload(conversation())
        assert (body["cache_prompt"], body["id_slot"]) == (True, 0)


RATE_LIMITED = {"error": {"message": "Rate limit reached for requests", "type": "requests"}}


class TestRetries:
    """429, 5xx, 529 and a dropped connection are sent again with backoff, Retry-After honoured
    and capped; the request and key errors never are (the waits are injected, never slept)."""

    async def test_a_429_with_retry_after_then_an_answer(self) -> None:
        server = ScriptedServer([Answer(429, RATE_LIMITED, {"Retry-After": "7"}), say("Harbour is active.")])
        sleeps = Sleeps()
        turn = await openai(server, retry=Retry(sleep=sleeps)).complete(conversation())
        assert turn.text == "Harbour is active."
        assert len(server.bodies) == 2 and server.bodies[0] == server.bodies[1]  # the same bytes, sent again
        assert sleeps.waited == [7.0]

    async def test_retry_after_as_an_http_date(self) -> None:
        when = email.utils.format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
        server = ScriptedServer([Answer(503, {"error": "Loading model"}, {"Retry-After": when}), say("ok")], wire="anthropic")
        sleeps = Sleeps()
        await anthropic(server, retry=Retry(sleep=sleeps)).complete(conversation())
        [waited] = sleeps.waited
        assert 28 <= waited <= 30  # the date is to the second

    def test_retry_after_is_read_both_ways(self) -> None:
        assert retry_after("12") == 12.0 and retry_after("0.5") == 0.5
        assert retry_after("Wed, 02 Dec 2026 14:00:30 GMT", now=datetime(2026, 12, 2, 14, 0, tzinfo=UTC).timestamp()) == 30.0
        assert retry_after("Wed, 02 Dec 2026 13:00:00 GMT", now=datetime(2026, 12, 2, 14, 0, tzinfo=UTC).timestamp()) == 0.0
        assert retry_after(None) is None and retry_after("soon") is None
        assert server_wait(httpx2.Headers({"retry-after-ms": "1500", "retry-after": "2"})) == 1.5
        assert server_wait(httpx2.Headers({"retry-after-ms": "soon", "retry-after": "2"})) == 2.0
        assert server_wait(httpx2.Headers({})) is None

    async def test_waits_are_capped_and_back_off_without_retry_after(self) -> None:
        server = ScriptedServer([Answer(429, RATE_LIMITED, {"Retry-After": "3600"}), Answer(502, {"error": "bad gateway"}), Answer(500, {"error": "boom"}), say("ok")])
        sleeps = Sleeps()
        await openai(server, retry=Retry(retries=3, base=1.0, cap=60.0, sleep=sleeps)).complete(conversation())
        assert len(server.bodies) == 4 and sleeps.waited[0] == 60.0
        # Exponential with full jitter: the n-th wait lies within [0, base * 2**(n-1)].
        assert 0 <= sleeps.waited[1] <= 2.0 and 0 <= sleeps.waited[2] <= 4.0

    async def test_the_last_failure_says_how_often_and_what_to_change(self) -> None:
        overloaded = Answer(529, wire("anthropic_error_overloaded.json"))
        server = ScriptedServer([overloaded] * 3, wire="anthropic")
        sleeps = Sleeps()
        with pytest.raises(ProviderError) as failed:
            await anthropic(server, retry=Retry(retries=2, sleep=sleeps)).complete(conversation())
        assert len(server.bodies) == 3 and len(sleeps.waited) == 2
        message = str(failed.value)
        assert "HTTP 529" in message and "the API is overloaded: wait before asking again" in message
        assert "sent 3 times" in message and "FACADE_HOST_RETRIES" in message

    @pytest.mark.parametrize(
        ("status", "body"),
        [
            (400, {"error": {"message": "bad request"}}),
            (401, {"error": {"message": "invalid key"}}),
            (403, {"error": {"message": "forbidden"}}),
            (404, {"error": "model 'qwen3:4b' not found"}),
            (400, wire("openai_error_context_length.json")),
        ],
    )
    async def test_request_key_and_length_errors_are_never_sent_again(self, status: int, body: Any) -> None:
        server = ScriptedServer([Answer(status, body), say("never")])
        sleeps = Sleeps()
        with pytest.raises(ProviderError) as failed:
            await openai(server, retry=Retry(sleep=sleeps)).complete(conversation())
        assert len(server.bodies) == 1 and sleeps.waited == [] and "sent " not in str(failed.value)

    async def test_a_dropped_connection_is_sent_again(self) -> None:
        answered = Recorder(200, wire("openai_response_llamacpp.json"))
        sent: list[bytes] = []

        def flaky(request: httpx2.Request) -> httpx2.Response:
            sent.append(request.content)
            if len(sent) == 1:
                raise httpx2.RemoteProtocolError("Server disconnected without sending a response.", request=request)
            return answered.handle(request)

        sleeps = Sleeps()
        provider = OpenAIProvider(base_url="http://127.0.0.1:8080/v1", model="m", http=httpx2.AsyncClient(transport=httpx2.MockTransport(flaky)), retry=Retry(sleep=sleeps))
        turn = await provider.complete(conversation())
        assert len(sent) == 2 and len(sleeps.waited) == 1 and turn.text.startswith("Harbour")

    async def test_no_retries_when_set_to_zero(self) -> None:
        server = ScriptedServer([Answer(503, {"error": "Loading model"}), say("ok")])
        with pytest.raises(ProviderError, match="still loading"):
            await openai(server, retry=Retry(retries=0, sleep=Sleeps())).complete(conversation())
        assert len(server.bodies) == 1

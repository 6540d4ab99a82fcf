"""Our provider adapters and wire recordings against the official SDKs (`openai`, `anthropic`):

- every request body an adapter builds validates against the SDK's own request params type
  (`CompletionCreateParamsNonStreaming`, `MessageCreateParamsNonStreaming`) — for the recorded
  conversation, for histories the loop produces (omission markers, a compaction summary, orphaned
  results, the summary request) and for the real tool schemas of every facade capability;
- every recorded response and error validates against the SDK's response model (`ChatCompletion`,
  `Message`, the error types);
- the SDK client itself, pointed at a local HTTP server that replays our recording, sends the same
  body our adapter sends and parses the recording into the same text, calls and usage our adapter
  reads — so the recordings are the shape of the real APIs, not our reading of their docs.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, get_args

import anthropic
import openai
import pytest
from anthropic.types import ErrorResponse, Message
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from anthropic.types.tool_param import InputSchemaTyped
from openai.types import ErrorObject
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.completion_usage import CompletionUsage, PromptTokensDetails
from pydantic import TypeAdapter, ValidationError

from facade.host.compaction import continuation
from facade.host.messages import ToolSpec
from facade.host.names import from_provider
from facade.host.providers import DEFAULT_ANTHROPIC_MODEL, AnthropicProvider, FencedProvider, ModelRequest, OpenAIProvider, ProviderError, SystemParts
from facade.host.providers.anthropic import API_VERSION, parse_message
from facade.host.providers.http import CONTEXT_HINT, Retry
from facade.host.providers.openai import openai_usage, parse_completion
from facade.host.summarizer import summary_request
from facade.host.tokenizer import TokenCounter
from facade.host.tools import open_tools
from facade.host.usage import Usage
from tests.support import DEV, ServerProcess

pytestmark = pytest.mark.anyio
WIRE = Path(__file__).parent / "wire"
# Kept alive for the module: a TypedDict's lazily validated iterables need their validator later.
OPENAI_REQUEST = TypeAdapter(CompletionCreateParamsNonStreaming)
ANTHROPIC_REQUEST = TypeAdapter(MessageCreateParamsNonStreaming)
ANTHROPIC_SCHEMA = TypeAdapter(InputSchemaTyped)
PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # both APIs' rule for tool names


def wire(name: str) -> Any:
    return json.loads((WIRE / name).read_text(encoding="utf-8"))


def materialize(value: Any) -> Any:
    """A validated value as plain JSON data: lazily validated iterables are consumed (which
    validates their items), mappings and sequences rebuilt."""
    if isinstance(value, Mapping):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (list, tuple, Iterator)) or type(value).__name__ == "ValidatorIterator":
        return [materialize(v) for v in value]
    return value


def conforms(adapter: TypeAdapter[Any], body: dict[str, Any]) -> None:
    """`body` validates strictly against the SDK type, and nothing in it is unknown to the type:
    TypedDicts drop keys they do not declare, so the validated value must equal the body."""
    validated = materialize(adapter.validate_python(body, strict=True))
    assert validated == json.loads(json.dumps(body)), "the SDK type dropped or changed part of the body"


def conversation() -> ModelRequest:
    data = wire("conversation.json")
    return ModelRequest(SystemParts(**data["system"]), data["messages"], [ToolSpec(**t) for t in data["tools"]])


def histories() -> dict[str, ModelRequest]:
    """Requests whose histories come out of the loop's machinery, not only the recorded one."""
    base = conversation()
    messages = base.messages
    summary = continuation("The user asked which projects are active: Harbour (id 3).")
    return {
        "recorded": base,
        "compacted": ModelRequest(base.system, [summary, *messages[1:]], base.tools),
        "orphaned results": ModelRequest(base.system, [m for m in messages if m["role"] != "assistant"], base.tools),
        "text only, no tools": ModelRequest(base.system, [messages[1], {"role": "assistant", "content": "Harbour."}, {"role": "user", "content": "Thanks"}], []),
        "summary request": summary_request(messages, TokenCounter("o200k_base"), 4_000),
    }


def openai_provider(base_url: str = "http://127.0.0.1:11434/v1", **kwargs: Any) -> OpenAIProvider:
    return OpenAIProvider(base_url=base_url, model="qwen3:4b", max_tokens=1024, **kwargs)


def anthropic_provider(base_url: str = "https://api.anthropic.com") -> AnthropicProvider:
    # Not sent again: the replay answers each request once, as recorded.
    return AnthropicProvider(model=DEFAULT_ANTHROPIC_MODEL, api_key="sk-ant-test", base_url=base_url, max_tokens=1024, retry=Retry(retries=0))


class TestRequestsValidate:
    """What each adapter builds is a request the SDK's own types accept, key for key."""

    @pytest.mark.parametrize("name", list(histories()))
    def test_openai(self, name: str) -> None:
        request = histories()[name]
        conforms(OPENAI_REQUEST, openai_provider(temperature=0.2).payload(request))
        conforms(OPENAI_REQUEST, FencedProvider(openai_provider()).payload(request))

    @pytest.mark.parametrize("name", list(histories()))
    def test_anthropic(self, name: str) -> None:
        conforms(ANTHROPIC_REQUEST, anthropic_provider().payload(histories()[name]))

    def test_the_recordings_are_requests_the_sdks_accept(self) -> None:
        conforms(OPENAI_REQUEST, wire("openai_request.json"))
        conforms(ANTHROPIC_REQUEST, wire("anthropic_request.json"))

    def test_a_key_the_api_does_not_define_is_caught(self) -> None:
        body = openai_provider().payload(conversation())
        body["messages"][-1]["is_error"] = True  # the OpenAI API has no error flag on tool messages
        with pytest.raises(AssertionError, match="dropped or changed"):
            conforms(OPENAI_REQUEST, body)
        body = anthropic_provider().payload(conversation())
        body["messages"][2]["content"][0]["type"] = "tool_output"
        with pytest.raises(ValidationError):
            conforms(ANTHROPIC_REQUEST, body)

    async def test_every_facade_tool_crosses_into_both_apis(self, server: ServerProcess) -> None:
        """walker sees every capability of every domain: their real announced schemas."""
        async with open_tools(server.url, agent="walker", token=DEV["walker"], conversation_id="sdk-check") as tools:
            specs = await tools.tools()
        assert len(specs) >= 400
        request = ModelRequest(SystemParts("You are a test."), [{"role": "user", "content": "Hi"}], specs)
        openai_body, anthropic_body = openai_provider().payload(request), anthropic_provider().payload(request)
        conforms(OPENAI_REQUEST, openai_body)
        conforms(ANTHROPIC_REQUEST, anthropic_body)
        for tool in anthropic_body["tools"]:
            # The SDK's union also takes any dict; the API wants an object schema, as typed here.
            assert materialize(ANTHROPIC_SCHEMA.validate_python(tool["input_schema"], strict=True))["type"] == "object", tool["name"]
            assert PROVIDER_NAME.match(tool["name"]), tool["name"]
        assert [t["function"]["name"] for t in openai_body["tools"]] == [t["name"] for t in anthropic_body["tools"]]


OPENAI_RESPONSES = ["openai_response_openai.json", "openai_response_vllm.json", "openai_response_ollama.json", "openai_response_llamacpp.json", "openai_response_llamacpp_tool_calls.json"]
LOCAL_RESPONSES = [
    "openai_response_llamacpp_python_qwen_tool_call.json",
    "openai_response_llamaserver_qwen_tool_calls_text.json",
    "openai_response_ollama_json_block.json",
    "openai_response_vllm_json_answer.json",
    "openai_response_llamacpp_python_length.json",
]
ANTHROPIC_RESPONSES = ["anthropic_response_text.json", "anthropic_response_tool_use.json", "anthropic_response_cache_read_and_write.json"]


def expected_openai_usage(parsed: ChatCompletion, body: dict[str, Any]) -> Usage:
    """Usage as the SDK's model reports it (llama.cpp's cache count lives outside it, in timings)."""
    usage = parsed.usage
    assert usage is not None
    details = usage.prompt_tokens_details or PromptTokensDetails()
    cached = details.cached_tokens or int(body.get("timings", {}).get("cache_n", 0))
    written = details.cache_write_tokens or 0
    return Usage(usage.prompt_tokens - cached - written, usage.completion_tokens, written, cached)


class TestResponsesValidate:
    """Every recorded response is one the SDK's model accepts, and we read it as the SDK does."""

    @pytest.mark.parametrize("name", OPENAI_RESPONSES)
    def test_openai(self, name: str) -> None:
        body = wire(name)
        parsed = ChatCompletion.model_validate(body)
        turn = parse_completion(body)
        message = parsed.choices[0].message
        assert turn.text == (message.content or "") and turn.stop_reason == parsed.choices[0].finish_reason
        assert [(c.id, c.name) for c in turn.tool_calls] == [(c.id, from_provider(c.function.name)) for c in message.tool_calls or []]
        assert turn.usage == expected_openai_usage(parsed, body)
        assert turn.usage.prompt_tokens == parsed.usage.prompt_tokens  # type: ignore[union-attr]

    @pytest.mark.parametrize("name", LOCAL_RESPONSES)
    def test_local_servers_answer_in_the_sdks_shape(self, name: str) -> None:
        """The recordings whose calls come as text (read in tests/host/test_textcalls.py) are
        still chat completions the SDK accepts, with their usage read as it reads it."""
        body = wire(name)
        parsed = ChatCompletion.model_validate(body)
        assert parsed.choices[0].message.content and parse_completion(body).usage == expected_openai_usage(parsed, body)

    @pytest.mark.parametrize("name", ANTHROPIC_RESPONSES)
    def test_anthropic(self, name: str) -> None:
        body = wire(name)
        parsed = Message.model_validate(body)
        turn = parse_message(body)
        assert turn.text == "".join(b.text for b in parsed.content if b.type == "text")
        assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [(b.id, from_provider(b.name), b.input) for b in parsed.content if b.type == "tool_use"]
        u = parsed.usage
        assert turn.usage == Usage(u.input_tokens, u.output_tokens, u.cache_creation_input_tokens or 0, u.cache_read_input_tokens or 0)

    def test_openai_cache_writes_are_kept_apart_from_input(self) -> None:
        """The SDK's usage model carries `cache_write_tokens` among the prompt's details."""
        usage = CompletionUsage(prompt_tokens=3000, completion_tokens=40, total_tokens=3040, prompt_tokens_details=PromptTokensDetails(cached_tokens=1024, cache_write_tokens=1800))
        assert openai_usage({"usage": usage.model_dump(exclude_none=True)}) == Usage(input_tokens=176, output_tokens=40, cache_write_tokens=1800, cache_read_tokens=1024)

    def test_a_response_missing_its_choices_is_refused(self) -> None:
        body = wire("openai_response_openai.json")
        del body["choices"]
        with pytest.raises(ValidationError):
            ChatCompletion.model_validate(body)

    @pytest.mark.parametrize("name", ["openai_error_context_length.json", "ollama_error_not_found.json", "openai_error_llamacpp_python_null_content.json"])
    def test_openai_style_errors(self, name: str) -> None:
        assert ErrorObject.model_validate(wire(name)["error"]).message

    @pytest.mark.parametrize("name", ["anthropic_error.json", "anthropic_error_overloaded.json", "anthropic_error_prompt_too_long.json"])
    def test_anthropic_errors(self, name: str) -> None:
        parsed = ErrorResponse.model_validate(wire(name))
        assert parsed.type == "error" and parsed.error.message == wire(name)["error"]["message"]

    def test_llamacpp_errors_are_not_openai_shaped(self) -> None:
        """llama.cpp's `code` is the HTTP status, a number; OpenAI's is a string or null. The
        adapter reads neither (it reports the body); the SDK client copes (TestSDKClients)."""
        with pytest.raises(ValidationError, match="code"):
            ErrorObject.model_validate(wire("llamacpp_error_context.json")["error"])


def test_the_default_anthropic_model_is_not_retired() -> None:
    from anthropic._data.deprecated_models import DEPRECATED_MODELS

    from anthropic.types import ModelParam

    assert DEFAULT_ANTHROPIC_MODEL not in DEPRECATED_MODELS, DEPRECATED_MODELS.get(DEFAULT_ANTHROPIC_MODEL)
    named = {arg for part in get_args(ModelParam) for arg in get_args(part) if isinstance(arg, str)}
    assert DEFAULT_ANTHROPIC_MODEL in named  # a model the SDK names, not a guess


class Replay:
    """A local HTTP server that answers every POST with one recorded response and keeps what it
    was sent."""

    def __init__(self) -> None:
        self.status, self.body = 200, b"{}"
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("content-length") or 0)
                replay.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(self.rfile.read(length))))
                self.send_response(replay.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(replay.body)))
                self.end_headers()
                self.wfile.write(replay.body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, status: int, recording: str) -> None:
        self.status, self.body = status, (WIRE / recording).read_bytes()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def replay() -> Iterator[Replay]:
    served = Replay()
    yield served
    served.close()


class TestSDKClients:
    """The official clients against our recordings, over HTTP, beside our own adapters."""

    @pytest.mark.parametrize("recording", OPENAI_RESPONSES)
    async def test_openai_client(self, replay: Replay, recording: str) -> None:
        replay.answer(200, recording)
        ours = openai_provider(f"{replay.url}/v1", api_key="sk-local")
        client = openai.AsyncOpenAI(base_url=f"{replay.url}/v1", api_key="sk-local", max_retries=0)
        body = ours.payload(conversation())
        completion = await client.chat.completions.create(**body)
        turn = await ours.complete(conversation())
        (sdk_path, sdk_headers, sdk_body), (our_path, our_headers, our_body) = replay.requests
        assert sdk_body == our_body == json.loads(json.dumps(body)) and sdk_path == our_path == "/v1/chat/completions"
        assert sdk_headers["authorization"] == our_headers["authorization"] == "Bearer sk-local"
        message = completion.choices[0].message
        assert turn.text == (message.content or "")
        sdk_calls = message.tool_calls or []
        assert [c.name for c in turn.tool_calls] == [from_provider(c.function.name) for c in sdk_calls]
        # Where the arguments are JSON both read the same; where not, ours are mended (tests/host/test_textcalls.py).
        assert [(c.name, c.arguments) for c, sdk in zip(turn.tool_calls, sdk_calls, strict=True) if _parses(sdk.function.arguments)] == [
            (from_provider(c.function.name), json.loads(c.function.arguments)) for c in sdk_calls if _parses(c.function.arguments)
        ]
        assert turn.usage == expected_openai_usage(completion, wire(recording))

    @pytest.mark.parametrize("recording", ANTHROPIC_RESPONSES)
    async def test_anthropic_client(self, replay: Replay, recording: str) -> None:
        replay.answer(200, recording)
        ours = anthropic_provider(replay.url)
        client = anthropic.AsyncAnthropic(base_url=replay.url, api_key="sk-ant-test", max_retries=0)
        body = ours.payload(conversation())
        message = await client.messages.create(**body)
        turn = await ours.complete(conversation())
        (sdk_path, sdk_headers, sdk_body), (our_path, our_headers, our_body) = replay.requests
        assert sdk_body == our_body == json.loads(json.dumps(body)) and sdk_path == our_path == "/v1/messages"
        # The SDK sends its own, newer API version; ours is the one the recordings were written for.
        assert our_headers["anthropic-version"] == API_VERSION and sdk_headers["anthropic-version"]
        # The key travels as `x-api-key` (ours, the documented header) or as a bearer (this SDK).
        assert our_headers["x-api-key"] == "sk-ant-test" and "sk-ant-test" in (sdk_headers.get("x-api-key"), sdk_headers.get("authorization", "").removeprefix("Bearer "))
        assert turn.text == "".join(b.text for b in message.content if b.type == "text")
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [(from_provider(b.name), b.input) for b in message.content if b.type == "tool_use"]
        u = message.usage
        assert turn.usage == Usage(u.input_tokens, u.output_tokens, u.cache_creation_input_tokens or 0, u.cache_read_input_tokens or 0)

    @pytest.mark.parametrize(
        ("status", "recording", "sdk_error", "ours"),
        [
            (400, "openai_error_context_length.json", openai.BadRequestError, CONTEXT_HINT),
            (400, "llamacpp_error_context.json", openai.BadRequestError, CONTEXT_HINT),
            (404, "ollama_error_not_found.json", openai.NotFoundError, "check the base URL"),
        ],
    )
    async def test_openai_errors(self, replay: Replay, status: int, recording: str, sdk_error: type[Exception], ours: str) -> None:
        replay.answer(status, recording)
        client = openai.AsyncOpenAI(base_url=f"{replay.url}/v1", api_key="k", max_retries=0)
        with pytest.raises(sdk_error) as caught:
            await client.chat.completions.create(**openai_provider().payload(conversation()))
        assert wire(recording)["error"]["message"] in str(caught.value)
        with pytest.raises(ProviderError) as failed:
            await openai_provider(f"{replay.url}/v1").complete(conversation())
        assert ours in str(failed.value) and wire(recording)["error"]["message"][:60] in str(failed.value)

    @pytest.mark.parametrize(
        ("status", "recording", "sdk_error", "ours"),
        [
            (400, "anthropic_error.json", anthropic.BadRequestError, "unexpected `tool_use_id`"),
            (400, "anthropic_error_prompt_too_long.json", anthropic.BadRequestError, CONTEXT_HINT),
            (529, "anthropic_error_overloaded.json", anthropic.OverloadedError, "the API is overloaded: wait before asking again"),
        ],
    )
    async def test_anthropic_errors(self, replay: Replay, status: int, recording: str, sdk_error: type[Exception], ours: str) -> None:
        replay.answer(status, recording)
        client = anthropic.AsyncAnthropic(base_url=replay.url, api_key="k", max_retries=0)
        with pytest.raises(sdk_error) as caught:
            await client.messages.create(**anthropic_provider().payload(conversation()))
        assert getattr(caught.value, "body", None) == wire(recording)
        with pytest.raises(ProviderError, match=re.escape(ours)):
            await anthropic_provider(replay.url).complete(conversation())


def _parses(arguments: str) -> bool:
    try:
        return isinstance(json.loads(arguments), dict)
    except json.JSONDecodeError:
        return False

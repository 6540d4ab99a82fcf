"""Recognising a server's refusal of a too-long prompt (facade.host.providers.refusals), from the
recorded errors of OpenAI, the llama.cpp server and Anthropic, through the adapters that meet
them; and what the host learns from one (facade.host.overflow)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from facade.host.compaction import CompactionConfig
from facade.host.overflow import NOTHING_TO_COMPACT, LearnedWindow, gave_up, refused_window
from facade.host.providers import CONTEXT_LENGTH, FencedProvider, ProviderError
from facade.host.providers.http import CONTEXT_HINT, http_failure
from facade.host.providers.refusals import Overflow, overflow
from facade.host.usage import COMPACTION, ModelCall, Usage
from tests.host.test_providers import Recorder, anthropic, conversation, openai, wire

pytestmark = pytest.mark.anyio


def refusal(window: int | None = None, prompt_tokens: int | None = None) -> ProviderError:
    return ProviderError("openai: HTTP 400 — too long", kind=CONTEXT_LENGTH, window=window, prompt_tokens=prompt_tokens)


class TestRecognition:
    """Each recorded refusal becomes kind `context_length` with the window the server stated;
    every other recorded error stays what it was."""

    @pytest.mark.parametrize(
        ("api", "recording", "window", "prompt_tokens"),
        [
            ("openai", "openai_error_context_length.json", 128_000, 131_072),
            ("openai", "llamacpp_error_context.json", 8_192, 13_392),
            ("anthropic", "anthropic_error_prompt_too_long.json", 200_000, 208_310),
        ],
    )
    async def test_an_overflow(self, api: str, recording: str, window: int, prompt_tokens: int) -> None:
        recorder = Recorder(400, wire(recording))
        provider = openai(recorder) if api == "openai" else anthropic(recorder)
        with pytest.raises(ProviderError) as failed:
            await provider.complete(conversation())
        error = failed.value
        assert (error.kind, error.window, error.prompt_tokens) == (CONTEXT_LENGTH, window, prompt_tokens)
        assert CONTEXT_HINT in str(error) and wire(recording)["error"]["message"] in str(error)

    @pytest.mark.parametrize(
        ("api", "status", "recording"),
        [
            ("anthropic", 400, "anthropic_error.json"),
            ("anthropic", 529, "anthropic_error_overloaded.json"),
            ("openai", 404, "ollama_error_not_found.json"),
        ],
    )
    async def test_not_an_overflow(self, api: str, status: int, recording: str) -> None:
        recorder = Recorder(status, wire(recording))
        provider = openai(recorder) if api == "openai" else anthropic(recorder)
        with pytest.raises(ProviderError) as failed:
            await provider.complete(conversation())
        error = failed.value
        assert (error.kind, error.window, error.prompt_tokens) == (None, None, None)
        assert CONTEXT_HINT not in str(error) and wire(recording)["error"]["message"] in str(error)

    async def test_the_fenced_protocol_passes_the_kind_on(self) -> None:
        with pytest.raises(ProviderError) as failed:
            await FencedProvider(openai(Recorder(400, wire("llamacpp_error_context.json")))).complete(conversation())
        assert (failed.value.kind, failed.value.window) == (CONTEXT_LENGTH, 8_192)

    def test_the_status_decides_too(self) -> None:
        body = json.dumps(wire("openai_error_context_length.json"))
        assert overflow(413, body) == Overflow(128_000, 131_072)  # a proxy refusing the body, in the same words
        assert overflow(500, body) is None  # a server that broke while saying so did not refuse the prompt

    def test_the_numbers_are_read_from_the_words_when_the_fields_are_missing(self) -> None:
        recorded = wire("llamacpp_error_context.json")["error"]
        words_only = {k: v for k, v in recorded.items() if k not in ("n_ctx", "n_prompt_tokens")}
        assert overflow(400, json.dumps({"error": words_only})) == Overflow(8_192, 13_392)

    def test_a_refusal_that_states_no_numbers(self) -> None:
        error = http_failure("openai", 400, json.dumps({"error": {"message": "too long", "code": "context_length_exceeded"}}), "http://x/v1")
        assert (error.kind, error.window, error.prompt_tokens) == (CONTEXT_LENGTH, None, None)
        assert overflow(400, "prompt is too long (not JSON)") == Overflow(None, None)


class TestWhatARefusalTeaches:
    """The window a refusal shows, in the host's tokens, and how it narrows the configured one."""

    def test_the_stated_window_is_converted_by_the_ratio_the_request_measured(self) -> None:
        # The host counted 10,000 where the server counted 13,392: its 8,192 are ~6,117 of ours.
        assert refused_window(10_000, 8_192, 13_392) == 8_192 * 10_000 // 13_392
        assert refused_window(10_000, 8_192, None) == 8_192
        assert refused_window(6_000, 8_192, None) == 6_000  # never more than the request refused
        assert refused_window(10_000, None, None) == 10_000
        # The server counted the prompt as fitting (it refused the reply's room): the request bounds it.
        assert refused_window(10_000, 8_192, 7_000) == 10_000

    def test_an_unknown_window_becomes_known(self) -> None:
        window = LearnedWindow(CompactionConfig())
        assert (window.window, window.source, window.compaction.threshold) == (None, "unknown", None)
        assert window.learn(refusal(8_192, 13_392), 10_000) == 6_117
        assert (window.window, window.source) == (6_117, "refusal")
        assert window.compaction.context_window == 6_117 and window.compaction.threshold == int(6_117 * 0.8)

    def test_it_only_narrows(self) -> None:
        configured = CompactionConfig(context_window=32_768, compact_at=0.5)
        window = LearnedWindow(configured)
        assert window.learn(refusal(), 40_000) == 32_768 and window.source == "configured"
        assert window.compaction is configured
        assert window.learn(refusal(), 20_000) == 20_000 and window.source == "refusal"
        assert window.compaction == CompactionConfig(context_window=20_000, compact_at=0.5)
        assert window.learn(refusal(), 30_000) == 20_000

    def test_the_error_given_up_on_keeps_its_words_and_kind(self) -> None:
        error = http_failure("openai", 400, json.dumps(wire("llamacpp_error_context.json")), "http://127.0.0.1:8080/v1/chat/completions")
        final = gave_up(error, NOTHING_TO_COMPACT)
        assert str(final).startswith(str(error)) and "nothing older to compact" in str(final)
        assert (final.kind, final.window, final.prompt_tokens) == (CONTEXT_LENGTH, 8_192, 13_392)


class TestRefusedCalls:
    """A refused call is in the usage ledger, with no tokens, and survives a reload."""

    def test_round_trip(self) -> None:
        call = ModelCall(3, 2, Usage(), 0, refused=True)
        assert ModelCall.from_dict(json.loads(json.dumps(call.to_dict()))) == call
        assert call.describe() == "refused: the prompt was longer than the server's window"

    def test_records_written_before_refusals_were_counted(self) -> None:
        old: dict[str, Any] = {"turn": 1, "call": 2, "usage": Usage(5, 6).to_dict(), "tool_calls": 0, "purpose": COMPACTION}
        assert ModelCall.from_dict(old) == ModelCall(1, 2, Usage(5, 6), 0, COMPACTION, refused=False)

"""A server that refuses a prompt as too long, driven by the shared scripted model against a real
`facade serve`: a stand-in for a llama.cpp server that runs a smaller context than agent.toml says
refuses the third log's request once; the loop learns the window from the refusal, compacts,
sends the call again and goes on — and from then on compacts before sending. With nothing older
to compact, or a retry refused too, the person gets the honest error."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from facade.host.commands import run
from facade.host.compaction import CompactionConfig, is_summary
from facade.host.overflow import COMPACT_AND_RETRY, NOTHING_TO_COMPACT, RETRY_REFUSED
from facade.host.providers import CONTEXT_LENGTH, ModelRequest, ProviderError
from facade.host.providers.http import CONTEXT_HINT, http_failure
from facade.host.session import Session
from facade.host.testing import ScriptedModel, Step
from facade.host.tokenizer import TokenCounter
from facade.host.trajectory import read_trajectory
from facade.host.usage import COMPACTION, TURN, Usage
from tests.host.conftest import Host
from tests.host.test_loop_compaction import Conversation, is_summary_request, logs, reads, without_window  # noqa: F401 (logs is a fixture)
from tests.host.test_providers import wire
from tests.support import DEV, ServerProcess

pytestmark = pytest.mark.anyio

LLAMA_URL = "http://127.0.0.1:8080/v1/chat/completions"
# The stand-in's context, above its count of the first request: two log reads fit, the third does
# not (a log's result costs ~2,050 tokens in its count; measured 2026-11-30 with francis's catalogue).
HEADROOM = 5_200
# The window the agent is configured with: the model card's, larger than the server runs.
CARD_WINDOW = 32_768


def refusal_body(prompt_tokens: int, n_ctx: int) -> dict[str, Any]:
    """The llama.cpp server's recorded refusal, with this request's numbers."""
    recorded = wire("llamacpp_error_context.json")["error"]
    message = recorded["message"].replace(str(recorded["n_prompt_tokens"]), str(prompt_tokens)).replace(str(recorded["n_ctx"]), str(n_ctx))
    return {"error": {**recorded, "message": message, "n_prompt_tokens": prompt_tokens, "n_ctx": n_ctx}}


class LlamaServer:
    """The server's side of each call: it counts the request with its own tokenizer (cl100k, not
    the host's qwen3, so the two counts differ as they do in life) and refuses one longer than its
    context, with the error the adapter raises for the recorded refusal. Without `n_ctx`, its
    context is set from the first request it sees, `headroom` above it."""

    def __init__(self, n_ctx: int | None = None, headroom: int = HEADROOM) -> None:
        self.n_ctx = n_ctx
        self.headroom = headroom
        self.counter = TokenCounter("cl100k_base")
        self.refused: list[tuple[ModelRequest, int]] = []

    def count(self, request: ModelRequest) -> int:
        return self.counter.count(json.dumps(ScriptedModel([]).payload(request), ensure_ascii=False))

    def check(self, request: ModelRequest) -> None:
        tokens = self.count(request)
        if self.n_ctx is None:
            self.n_ctx = tokens + self.headroom
        if tokens > self.n_ctx:
            self.refused.append((request, tokens))
            raise http_failure("openai", 400, json.dumps(refusal_body(tokens, self.n_ctx)), LLAMA_URL)


class Served(Conversation):
    """The scripted conversation behind the stand-in: every request, the summary's too, passes
    the server's check first."""

    def __init__(self, replies: list[Step], server: LlamaServer) -> None:
        super().__init__(replies)
        self.server = server

    def step(self, request: ModelRequest) -> Any:
        self.server.check(request)
        return super().step(request)


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["type"] == kind]


def question(n: int) -> str:
    return f"Read log {n} and tell me which crane is down."


class TestRecovered:
    """Refused once on the third log: learn, compact, retry, answer — then compact beforehand."""

    async def test_refused_once_compacts_retries_and_learns(self, host: Host, logs: list[str]) -> None:
        server = LlamaServer()
        conversation = Served(reads(logs) + reads(logs)[:2], server)
        card = CompactionConfig(context_window=CARD_WINDOW)
        async with host(conversation.model(), session_id="overflow-live", history_budget=10**6, compaction=card) as loop:
            conversation.loop = loop
            results = [await loop.run(question(n)) for n in (1, 2, 3, 1)]
        cranes = ["A", "B", "C", "A"]
        assert [r.answer for r in results] == [f"From the log: crane {c} down for repairs." for c in cranes]
        assert len(server.refused) == 1

        events = read_trajectory(loop.session.trajectory_path)
        [event] = of_type(events, "context.overflowed")
        refused_request, server_count = server.refused[0]
        assert (event["turn"], event["call"], event["action"]) == (3, 2, COMPACT_AND_RETRY)
        assert CONTEXT_HINT in event["error"] and f"request ({server_count} tokens) exceeds the available context size ({server.n_ctx} tokens)" in event["error"]
        assert event["server"] == {"window": server.n_ctx, "prompt_tokens": server_count}
        # The host's own count of the refused request is the one it compiled, and the window it
        # learned is the server's, converted by the ratio of the two counts.
        index = next(i for i, e in enumerate(events) if e["type"] == "context.overflowed")
        compiled = events[index - 1]
        assert compiled["type"] == "context.compiled" and compiled["data"]["messages"] == refused_request.messages
        sent = compiled["data"]["prompt"]["tokens"]
        learned = server.n_ctx * sent // server_count
        assert event["prompt"]["tokens"] == sent and learned < CARD_WINDOW
        assert event["window"] == {"before": CARD_WINDOW, "before_source": "configured", "after": learned, "after_source": "refusal"}

        # Compacted at once (the 4 recent messages verbatim), the summary fitted to the learned
        # window, and the call sent again from the compacted history.
        kinds = [e["type"] for e in events[index:]][:6]
        assert kinds == ["context.overflowed", "context.compiled", "model.completed", "context.compacted", "context.compiled", "model.completed"]
        compacted = events[index + 3]["data"]
        assert (compacted["turn"], compacted["reason"], compacted["kept"], compacted["summary_source"]) == (3, "overflow", 4, "model")
        assert (compacted["window"], compacted["threshold"]) == (learned, int(learned * 0.8))
        assert compacted["tokens_after"] < compacted["tokens_before"] == sent
        model = loop.provider
        asked = next(i for i, r in enumerate(model.requests) if is_summary_request(r))
        retried = model.requests[asked + 1]
        assert model.requests[asked - 1] is refused_request and is_summary(retried.messages[0])
        assert retried.messages[1:] == refused_request.messages[-4:] and server.count(retried) <= server.n_ctx

        # Usage shows every call of the turn: the refused one (no tokens), the summary, the retry.
        calls = [(c.call, c.purpose, c.tool_calls, c.refused) for c in results[2].calls]
        assert calls == [(1, TURN, 1, False), (2, TURN, 0, True), (3, COMPACTION, 0, False), (4, TURN, 0, False)]
        assert results[2].calls[1].usage == Usage() and results[2].calls[3].usage.input_tokens > 0
        assert Session.load(loop.session.path).ledger == loop.session.ledger

        # Learned: the fourth turn compacts by the learned window before sending, and is not refused.
        fourth = [e for e in events if e["data"].get("turn") == 4]
        assert not of_type(fourth, "context.overflowed")
        by_threshold = of_type(fourth, "context.compacted")
        assert by_threshold and all((c["reason"], c["window"]) == ("threshold", learned) for c in by_threshold)
        prompts = [c["prompt"] for c in of_type(fourth, "context.compiled") if c["purpose"] == TURN]
        assert prompts and all((p["window"], p["window_source"]) == (learned, "refusal") for p in prompts)


class TestGivingUp:
    """When compaction cannot help, the person gets the refusal, and what the host tried."""

    def test_nothing_older_to_compact(self, server: ServerProcess, tmp_path: Path) -> None:
        llama = LlamaServer(n_ctx=1_000)
        model = Served([], llama).model()
        out, err = io.StringIO(), io.StringIO()
        code = run(
            "francis", question(1), provider=model, out=out, err=err,
            url=server.url, token=DEV["francis"], sessions_dir=tmp_path, agents_dir=server.workdir / "agents",
        )
        [(_, counted)] = llama.refused
        assert code == 1 and out.getvalue() == "" and len(model.requests) == 1  # no summary was asked for
        said = err.getvalue()
        assert said.startswith(f"error: openai: HTTP 400 from {LLAMA_URL} — {CONTEXT_HINT}.")
        assert f"request ({counted} tokens) exceeds the available context size (1000 tokens)" in said
        assert "The host had nothing older to compact" in said and "Traceback" not in said

        [path] = [p for p in (tmp_path / "francis").glob("*.jsonl") if not p.name.endswith(".trajectory.jsonl")]
        session = Session.load(path)
        assert [(c.call, c.refused, c.usage) for c in session.ledger.calls] == [(1, True, Usage())]
        events = read_trajectory(session.trajectory_path)
        [event] = of_type(events, "context.overflowed")
        assert event["action"] == NOTHING_TO_COMPACT and event["window"]["after"] == 1_000 * event["prompt"]["tokens"] // counted
        assert not of_type(events, "context.compacted")

    async def test_the_retry_refused_too(self, host: Host, logs: list[str], server: ServerProcess, tmp_path: Path) -> None:
        # No window configured at all: the refusal is the only window the host will know.
        agents = without_window(server, tmp_path)
        llama = LlamaServer(headroom=10**6)
        conversation = Served(reads(logs), llama)
        async with host(conversation.model(), history_budget=10**6, agents_dir=agents) as loop:
            assert loop.config.compaction.context_window is None
            conversation.loop = loop
            await loop.run(question(1))
            llama.n_ctx = 1_000  # the server was restarted with a far smaller context
            with pytest.raises(ProviderError) as failed:
                await loop.run(question(2))
        error = failed.value
        assert error.kind == CONTEXT_LENGTH and error.window == 1_000 and CONTEXT_HINT in str(error)
        assert "The host compacted the conversation and sent it again, and the server refused that too" in str(error)
        events = read_trajectory(loop.session.trajectory_path)
        overflowed = of_type(events, "context.overflowed")
        assert [(e["turn"], e["call"], e["action"]) for e in overflowed] == [(2, 1, COMPACT_AND_RETRY), (2, 3, RETRY_REFUSED)]
        assert (overflowed[0]["window"]["before"], overflowed[0]["window"]["before_source"]) == (None, "unknown")
        assert overflowed[1]["window"]["after"] <= overflowed[0]["window"]["after"]
        # The summary was asked for within the window just learned, and still holds what it summarises.
        [asked] = [r for r in loop.provider.requests if is_summary_request(r)]
        assert question(1) in asked.messages[0]["content"] and llama.count(asked) <= llama.n_ctx
        assert [c["reason"] for c in of_type(events, "context.compacted")] == ["overflow"]
        turn = [(c.call, c.purpose, c.refused) for c in loop.session.ledger.calls if c.turn == 2]
        assert turn == [(1, TURN, True), (2, COMPACTION, False), (3, TURN, True)]

    async def test_other_failures_are_not_retried(self, host: Host) -> None:
        def unavailable(request: ModelRequest) -> Any:
            raise http_failure("openai", 503, '{"error": {"message": "Loading model", "type": "unavailable_error"}}', LLAMA_URL)

        model = ScriptedModel([unavailable, unavailable])
        async with host(model) as loop:
            with pytest.raises(ProviderError, match="still loading") as failed:
                await loop.run(question(1))
        assert failed.value.kind is None and len(model.requests) == 1
        events = read_trajectory(loop.session.trajectory_path)
        assert not of_type(events, "context.overflowed") and not of_type(events, "context.compacted")
        assert loop.session.ledger.calls == []

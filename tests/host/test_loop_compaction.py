"""Compaction in the loop, driven by the shared scripted model against a real `facade serve`: a
conversation whose history outgrows a small window is compacted once — the recent messages kept
verbatim, no tool call parted from its result, the summary written by the model in a model call of
its own (or by the host when that call fails) — and goes on, live and after a reload."""

from __future__ import annotations

import json
import math
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from facade.host.compaction import SUMMARY_INSTRUCTIONS, CompactionConfig, is_summary
from facade.host.exchanges import call_ids
from facade.host.providers import ModelRequest, ProviderError
from facade.host.session import Session
from facade.host.summarizer import SUMMARIZER_SYSTEM
from facade.host.testing import ScriptedModel, Step, call, say
from facade.host.trajectory import read_trajectory
from facade.host.usage import COMPACTION, Usage
from tests.host.conftest import Host
from tests.support import ServerProcess

pytestmark = pytest.mark.anyio

SUMMARY = "The user is reading the harbour logs one by one: log 1 reported crane A down, log 2 crane B down."
SUMMARY_USAGE = Usage(input_tokens=2900, output_tokens=60)
# Room above the bare prompt (system prompt, tools, one message) before compaction is due: two
# log reads fit under it, the third does not (a log's result is ~2,100 qwen3 tokens).
HEADROOM = 5_200


def is_summary_request(request: ModelRequest) -> bool:
    return request.system.static == SUMMARIZER_SYSTEM


class Conversation:
    """The scripted model's side: conversation replies in order, and a summary (or a failure)
    whenever the loop asks for one. `before` is the session as it was when the summary was asked."""

    def __init__(self, replies: list[Step], summary: Any = SUMMARY) -> None:
        self.replies = deque(replies)
        self.summary = summary
        self.before: list[dict[str, Any]] = []
        self.loop: Any = None

    def step(self, request: ModelRequest) -> Any:
        if is_summary_request(request):
            self.before = [dict(m) for m in self.loop.session.messages]
            if isinstance(self.summary, Exception):
                raise self.summary
            return say(self.summary, SUMMARY_USAGE)
        reply = self.replies.popleft()
        return reply(request) if callable(reply) else reply

    def model(self) -> ScriptedModel:
        return ScriptedModel([self.step] * 40)


def without_window(server: ServerProcess, tmp_path: Path) -> Path:
    """An agents folder under tmp_path whose francis is the server's, but with no context_window."""
    agents = tmp_path / "agents"
    (agents / "francis").mkdir(parents=True)
    toml = (server.workdir / "agents" / "francis" / "agent.toml").read_text()
    (agents / "francis" / "agent.toml").write_text("\n".join(line for line in toml.splitlines() if not line.startswith("context_window")))
    return agents


@pytest.fixture
def logs(server: ServerProcess) -> list[str]:
    """Three long logs in the facade's files, each with its own fact."""
    folder = server.workdir / "files" / "harbour"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, crane in enumerate("ABC", start=1):
        lines = [f"{h:02d}:00 log {n} shift report: crane {crane} {'down for repairs' if h == 7 else 'running'}, berth {h % 5} busy." for h in range(24)]
        (folder / f"log-{n}.txt").write_text("\n".join(lines * 4))
        paths.append(f"harbour/log-{n}.txt")
    return paths


async def bare_prompt_tokens(host: Host) -> int:
    """The prompt of a one-message conversation, as the loop measures it (no compaction)."""
    model = ScriptedModel([say("Hello.")])
    async with host(model, compaction=CompactionConfig(context_window=10**7)) as loop:
        await loop.run("Hi")
    compiled = [e for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "context.compiled"]
    return int(compiled[0]["data"]["prompt"]["tokens"])


def window_for(bare: int) -> int:
    return math.ceil((bare + HEADROOM) / 0.8)


async def three_reads(host: Host, logs: list[str], conversation: Conversation, session_id: str) -> tuple[Any, list[Any]]:
    """Three turns, one log each; the window is small enough that the third outgrows it."""
    window = window_for(await bare_prompt_tokens(host))
    results = []
    async with host(conversation.model(), session_id=session_id, history_budget=10**6, compaction=CompactionConfig(context_window=window)) as loop:
        conversation.loop = loop
        for n, path in enumerate(logs, start=1):
            results.append(await loop.run(f"Read log {n} and tell me which crane is down."))
    return loop, results


def last_tool_text(request: ModelRequest) -> str:
    return next(m for m in reversed(request.messages) if m["role"] == "tool")["content"]


def crane_reply(request: ModelRequest) -> Any:
    content = json.loads(last_tool_text(request))["content"]
    down = next(line for line in content.splitlines() if "down" in line)
    return say(f"From the log: {down.split(': ', 1)[1].split(',')[0]}.")


def reads(logs: list[str]) -> list[Step]:
    return [step for path in logs for step in (call("files.read", {"path": path}), crane_reply)]


class TestCompactionInTheLoop:
    """The window is outgrown on the third log: one summary call, then the turn goes on."""

    async def test_compacts_once_keeps_the_recent_verbatim_and_continues(self, host: Host, logs: list[str]) -> None:
        conversation = Conversation(reads(logs))
        loop, results = await three_reads(host, logs, conversation, "compact-live")
        events = read_trajectory(loop.session.trajectory_path)
        compacted = [e["data"] for e in events if e["type"] == "context.compacted"]
        assert len(compacted) == 1, compacted
        event = compacted[0]
        assert event["turn"] == 3 and event["summary_source"] == "model" and event["error"] is None
        assert event["tokens_before"] > event["threshold"] >= event["tokens_after"]

        # The 4 most recent messages verbatim (the cut fell between exchanges), the rest one summary.
        before = conversation.before
        assert event["summarised"] + event["kept"] == len(before) and event["kept"] == 4
        summary, *recent = loop.session.messages[: 1 + event["kept"]]
        assert is_summary(summary) and f"<summary>\n{SUMMARY}\n</summary>" in summary["content"]
        assert recent == before[-4:]
        assert [m["role"] for m in recent] == ["assistant", "user", "assistant", "tool"]
        # No tool call parted from its result: every result kept answers a call kept, and the
        # summarised part holds both halves of its exchanges.
        kept_calls = set().union(*(call_ids(m) for m in recent))
        assert all(m["tool_call_id"] in kept_calls for m in recent if m["role"] == "tool")
        older = before[: event["summarised"]]
        assert {m["tool_call_id"] for m in older if m["role"] == "tool"} == set().union(*(call_ids(m) for m in older))

        # The summary was asked for once, with the older messages as a transcript and no tools.
        model = loop.provider
        asked = [r for r in model.requests if is_summary_request(r)]
        assert len(asked) == 1 and asked[0].tools == [] and len(asked[0].messages) == 1
        transcript = asked[0].messages[0]["content"]
        assert transcript.endswith(SUMMARY_INSTRUCTIONS) and "[assistant called files.read]" in transcript
        assert "crane A down for repairs" in transcript and "crane B down for repairs" in transcript
        assert "crane C" not in transcript  # the third log is recent: kept verbatim, not summarised

        # The model went on from the compacted history, and answered.
        after = model.requests[model.requests.index(asked[0]) + 1]
        assert after.messages[0] == summary and after.messages[1:] == recent
        assert results[2].answer == "From the log: crane C down for repairs." and not results[2].stopped

        # Usage: the summary is a model call of its own, between the two calls of the tool turn.
        assert [(c.call, c.purpose, c.tool_calls) for c in results[2].calls] == [(1, "turn", 1), (2, COMPACTION, 0), (3, "turn", 0)]
        assert results[2].calls[1].usage == SUMMARY_USAGE
        assert "call 2 (summarised the earlier conversation): in 2,900" in loop.session.ledger.describe()
        completed = [e["data"] for e in events if e["type"] == "model.completed" and e["data"]["purpose"] == COMPACTION]
        assert [(c["turn"], c["call"], c["usage"]) for c in completed] == [(3, 2, SUMMARY_USAGE.to_dict())]
        kinds = [e["type"] for e in events if e["data"].get("turn") == 3]
        assert kinds[kinds.index("context.compacted") - 2 : kinds.index("context.compacted") + 2] == [
            "context.compiled", "model.completed", "context.compacted", "context.compiled",
        ]

    async def test_a_reload_continues_from_the_compacted_history(self, host: Host, logs: list[str]) -> None:
        conversation = Conversation(reads(logs))
        loop, _ = await three_reads(host, logs, conversation, "compact-reload")
        reloaded = Session.load(loop.session.path)
        assert reloaded.messages == loop.session.messages and is_summary(reloaded.messages[0])
        assert reloaded.ledger == loop.session.ledger

        later = ScriptedModel([say("Cranes A, B and C were each down once.")])
        async with host(later, session_id="compact-reload", history_budget=10**6) as resumed:
            assert resumed.session.messages == loop.session.messages
            await resumed.run("Sum it up.")
        first = later.requests[0].messages
        assert first[0] == loop.session.messages[0] and first[-1] == {"role": "user", "content": "Sum it up."}

    async def test_when_the_summary_call_fails_the_host_writes_one(self, host: Host, logs: list[str]) -> None:
        failure = ProviderError("openai: HTTP 503 from http://127.0.0.1:11434/v1/chat/completions — the endpoint failed")
        conversation = Conversation(reads(logs), summary=failure)
        loop, results = await three_reads(host, logs, conversation, "compact-fallback")
        compacted = [e["data"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "context.compacted"]
        assert [(c["summary_source"], c["summary_call"]) for c in compacted] == [("host", None)]
        assert compacted[0]["error"].startswith("openai: HTTP 503") and compacted[0]["tokens_after"] < compacted[0]["tokens_before"]
        content = loop.session.messages[0]["content"]
        assert is_summary(loop.session.messages[0]) and "The host listed the earlier messages itself" in content
        assert "- The user wrote: Read log 1 and tell me which crane is down." in content
        assert '- The assistant called files.read {"path":"harbour/log-1.txt"}' in content
        assert '- files.read returned: {"path":"harbour/log-1.txt","size":' in content and "log 1 shift report: crane A" in content
        assert results[2].answer == "From the log: crane C down for repairs."
        # A failed call reported no usage: the ledger holds only the conversation's calls.
        assert all(c.purpose == "turn" for c in loop.session.ledger.calls)


class TestNoWindowNoCompaction:
    """With the window unknown, nothing is compacted; the context manager alone fits the history."""

    async def test_the_window_unknown(self, host: Host, logs: list[str], tmp_path: Path, server: ServerProcess) -> None:
        agents = without_window(server, tmp_path)
        model = ScriptedModel(reads(logs)[:2])
        async with host(model, history_budget=200, agents_dir=agents) as loop:
            assert loop.config.compaction.context_window is None
            await loop.run("Read log 1 and tell me which crane is down.")
        events = read_trajectory(loop.session.trajectory_path)
        assert not [e for e in events if e["type"] == "context.compacted"]
        prompt = [e["data"]["prompt"] for e in events if e["type"] == "context.compiled"]
        assert prompt and all(p["window"] is None and p["threshold"] is None for p in prompt)

"""When the system prompt and tools alone pass the compaction threshold (issue 19, item 4), driven
by the shared scripted model against a real `facade serve`: compacting cannot help, so the host
does not compact on every step (it did: 6 compactions in 4 turns, 14 model calls instead of 8,
the first making the prompt larger); it says so once, in the trajectory and in one line to the
user, and with disclosure it offers fewer tools. And a compaction whose summary would not make
the request smaller is not applied, nor tried again on every step."""

from __future__ import annotations

import math
from typing import Any

import pytest

from facade.host.compaction import CompactionConfig
from facade.host.testing import ScriptedModel, say
from facade.host.trajectory import read_trajectory
from facade.host.usage import COMPACTION, TURN
from tests.host.conftest import Host
from tests.host.test_loop_compaction import Conversation, bare_prompt_tokens, logs, reads  # noqa: F401 (logs is a fixture)

pytestmark = pytest.mark.anyio


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["type"] == kind]


class TestFixedPartOver:
    """The window is so small that the system prompt and tools alone pass `compact_at` of it."""

    async def test_four_reads_make_eight_model_calls_and_no_compaction(self, host: Host, logs: list[str]) -> None:
        bare = await bare_prompt_tokens(host)
        window = int(bare * 0.9 / 0.8)  # threshold at 90% of the bare prompt: the fixed part is over
        conversation = Conversation(reads(logs) + reads(logs)[:2])
        async with host(conversation.model(), session_id="fixed-over", compaction=CompactionConfig(context_window=window)) as loop:
            conversation.loop = loop
            results = [await loop.run(f"Read log {n} and tell me which crane is down.") for n in (1, 2, 3, 1)]
        events = read_trajectory(loop.session.trajectory_path)
        calls = [c.purpose for c in loop.session.ledger.calls]
        assert calls == [TURN] * 8 and COMPACTION not in calls
        assert not of_type(events, "context.compacted")
        [said] = of_type(events, "context.over_window")
        assert said["turn"] == 1 and said["fixed_tokens"] > said["threshold"] == int(window * 0.8)
        assert said["window"] == window and said["shed"] == [] and said["disclosure"] is False
        # One line to the user, in the first answer only.
        notes = [r.answer.splitlines()[0] for r in results if r.answer.startswith("note:")]
        assert len(notes) == 1 and results[0].answer.startswith("note:") and str(window) in notes[0].replace(",", "")
        assert results[0].answer.endswith("From the log: crane A down for repairs.")
        assert [r.answer.splitlines()[-1] for r in results] == [f"From the log: crane {c} down for repairs." for c in "ABCA"]

    async def test_with_disclosure_the_loaded_tools_go_first(self, host: Host) -> None:
        request = "How many projects have we got on the go right now?"

        async def fixed(preload: int, compaction: CompactionConfig | None = None) -> tuple[ScriptedModel, Any]:
            model = ScriptedModel([say("Two.")])
            config: dict[str, Any] = {"preload_tools": preload}
            if compaction:
                config["compaction"] = compaction
            async with host(model, agent="pocket", **config) as loop:
                await loop.run(request)
            return model, loop

        plain, plain_loop = await fixed(0)
        routed, routed_loop = await fixed(3)
        assert len(routed.requests[0].tools) > len(plain.requests[0].tools)  # routing loaded tools
        sizes = [[e["data"]["prompt"]["tokens"] for e in read_trajectory(lp.session.trajectory_path) if e["type"] == "context.compiled"][0]
                 for lp in (plain_loop, routed_loop)]
        window = math.ceil((sizes[0] + sizes[1]) / 2 / 0.8)  # the threshold between the two

        model, loop = await fixed(3, CompactionConfig(context_window=window))
        events = read_trajectory(loop.session.trajectory_path)
        [said] = of_type(events, "context.over_window")
        assert said["disclosure"] is True and said["shed"]
        assert {t.name for t in model.requests[0].tools} == {t.name for t in plain.requests[0].tools}
        sent = [e["data"]["prompt"]["tokens"] for e in events if e["type"] == "context.compiled"]
        assert sent[-1] <= int(window * 0.8) and not of_type(events, "context.compacted")


class TestCompactOnlyWhenSmaller:
    """The history is what is over, but the summary would cost more than what it replaces."""

    async def test_a_summary_that_does_not_shrink_the_request_is_not_applied_or_retried(self, host: Host) -> None:
        bare = await bare_prompt_tokens(host)
        # Small turns over a threshold a little above the bare prompt; a summary far longer than them.
        window = math.ceil((bare + 150) / 0.8)
        chat = [say(f"Answer {n}: the crane log is fine.") for n in range(8)]
        conversation = Conversation(chat, summary="The user asked about the crane logs. " * 60)
        async with host(conversation.model(), session_id="not-smaller", compaction=CompactionConfig(context_window=window)) as loop:
            conversation.loop = loop
            for n in range(8):
                await loop.run(f"Question {n}: is the crane log for berth {n} fine today, and who checked it last?")
        events = read_trajectory(loop.session.trajectory_path)
        assert not of_type(events, "context.compacted")
        skipped = of_type(events, "context.compaction_skipped")
        assert len(skipped) == 1 and skipped[0]["tokens_after"] >= skipped[0]["tokens_before"]
        assert [c.purpose for c in loop.session.ledger.calls].count(COMPACTION) == 1
        assert not any(m.get("role") == "system" for m in loop.session.messages)  # the session was not rewritten

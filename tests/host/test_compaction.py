"""Compaction: the recent messages verbatim, the rest one summary, no exchange ever split."""

from __future__ import annotations

import random
from typing import Any

import anyio
import pytest

from facade.host.compaction import (
    COMPACT_AT,
    CONTINUE,
    PREAMBLE,
    CompactionConfig,
    CompactionError,
    acompact,
    compact,
    is_summary,
)
from facade.host.exchanges import call_ids, exchanges

Message = dict[str, Any]


def turns(n: int) -> list[Message]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"} for i in range(n)]


def exchange(call_ids_: list[str]) -> list[Message]:
    calls = [{"id": c, "name": "files.read", "arguments": {"path": f"{c}.txt"}} for c in call_ids_]
    return [{"role": "assistant", "content": "", "tool_calls": calls}] + [
        {"role": "tool", "tool_call_id": c, "name": "files.read", "content": f"contents of {c}", "is_error": False}
        for c in call_ids_
    ]


class Recorder:
    """A summariser that remembers what it was given."""

    def __init__(self, answer: str = "The user is migrating Bluejay; step 2 of 5 done.") -> None:
        self.answer = answer
        self.seen: list[list[Message]] = []

    def __call__(self, older: list[Message]) -> str:
        self.seen.append(older)
        return self.answer


class TestCompact:
    """Four recent messages verbatim, the rest in one system message with the continuation."""

    def test_recent_verbatim_rest_summarised(self) -> None:
        history = turns(10)
        summarize = Recorder()
        out = compact(history, summarize)
        assert out[1:] == history[-4:]
        assert summarize.seen == [history[:6]]
        assert len(out) == 5 and out[0]["role"] == "system"

    def test_summary_is_one_tagged_block_with_the_continuation(self) -> None:
        content = compact(turns(10), Recorder("Facts: Clara is allergic to peanuts."))[0]["content"]
        assert content.count("<summary>") == content.count("</summary>") == 1
        assert "<summary>\nFacts: Clara is allergic to peanuts.\n</summary>" in content
        assert content.startswith(PREAMBLE) and content.endswith(CONTINUE)
        lowered = content.lower()
        for needle in ("continues from an earlier conversation", "most recent messages follow verbatim", "do not recap"):
            assert needle in lowered

    def test_model_tags_and_scratchpad_are_unwrapped(self) -> None:
        answer = "<analysis>thinking…</analysis>\n<summary>Only this.</summary> trailing </summary>"
        content = compact(turns(10), Recorder(answer))[0]["content"]
        assert "<summary>\nOnly this.\n</summary>" in content and "thinking" not in content
        assert content.count("</summary>") == 1

    def test_short_history_is_left_alone(self) -> None:
        summarize = Recorder()
        assert compact(turns(4), summarize) == turns(4)
        assert summarize.seen == []

    def test_empty_summary_refuses_to_erase_the_history(self) -> None:
        with pytest.raises(CompactionError, match="keep the history as it is"):
            compact(turns(10), Recorder("  <summary> </summary> "))

    def test_compacting_again_folds_the_old_summary(self) -> None:
        first = compact(turns(10), Recorder("first summary"))
        summarize = Recorder("second summary")
        second = compact(first + turns(6), summarize)
        assert summarize.seen[0][0] == first[0] and is_summary(first[0])
        assert sum(is_summary(m) for m in second) == 1 and "second summary" in second[0]["content"]

    def test_async_summariser(self) -> None:
        async def summarize(older: list[Message]) -> str:
            return f"{len(older)} messages"

        out = anyio.run(acompact, turns(9), summarize)
        assert "<summary>\n5 messages\n</summary>" in out[0]["content"] and out[1:] == turns(9)[-4:]


class TestExchangesStayWhole:
    """A tool call is never split from its result, whatever the cut."""

    def test_result_at_the_cut_brings_its_call(self) -> None:
        history = turns(6) + exchange(["a"]) + turns(3)
        # The 4th from the end is the tool result: the call must come along.
        out = compact(history, Recorder())
        assert out[1:] == history[6:]

    def test_parallel_calls_stay_with_all_their_results(self) -> None:
        history = turns(6) + exchange(["a", "b", "c"]) + turns(2)
        summarize = Recorder()
        out = compact(history, summarize)
        assert out[1:] == history[6:]
        assert summarize.seen == [history[:6]]

    @pytest.mark.parametrize("seed", range(25))
    def test_no_cut_ever_splits_an_exchange(self, seed: int) -> None:
        rng = random.Random(seed)
        history: list[Message] = []
        for block in range(rng.randint(3, 12)):
            history += exchange([f"{block}-{i}" for i in range(rng.randint(1, 3))]) if rng.random() < 0.5 else turns(rng.randint(1, 3))
        for keep in range(len(history) + 1):
            summarize = Recorder()
            out = compact(history, summarize, keep_recent=keep)
            recent = out[1:] if summarize.seen else out
            older = summarize.seen[0] if summarize.seen else []
            assert older + recent == history and len(recent) >= keep
            asked_before = set().union(*(call_ids(m) for m in older))
            assert not any(m.get("tool_call_id") in asked_before for m in recent)
            assert all(m.get("role") != "tool" for m in recent[:1])

    def test_exchanges_cover_the_history_once(self) -> None:
        history = turns(2) + exchange(["a", "b"]) + [{"role": "tool", "tool_call_id": "zz", "content": "orphan"}] + turns(1)
        units = exchanges(history)
        assert [list(u) for u in units] == [[0], [1], [2, 3, 4], [5], [6]]


class TestConfig:
    """When compaction is due: past `compact_at` of a known window, never without one."""

    def test_threshold_and_due(self) -> None:
        config = CompactionConfig(context_window=10_000)
        assert config.threshold == 8_000 and config.compact_at == COMPACT_AT == 0.8
        assert not config.due(8_000) and config.due(8_001)
        assert CompactionConfig(context_window=10_000, compact_at=0.5).due(5_001)

    def test_an_unknown_window_never_compacts(self) -> None:
        config = CompactionConfig()
        assert config.threshold is None and not config.due(10**9)

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [({"context_window": 0}, "positive number of tokens"), ({"compact_at": 0}, "between 0 and 1"), ({"compact_at": 80}, "e.g. 0.8"), ({"keep_recent": -1}, "0 or more")],
    )
    def test_nonsense_is_refused_with_what_to_write(self, kwargs: dict[str, Any], message: str) -> None:
        with pytest.raises(ValueError, match=message):
            CompactionConfig(**kwargs)

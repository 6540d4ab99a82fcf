"""The recall benchmark's generator keeps its own rules: questions paraphrase, runs repeat, and no
answer sits where every method keeps it anyway."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from facade.host.tokenizer import TokenCounter

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_recall.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_recall", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_recall"] = module
    spec.loader.exec_module(module)
    return module


class TestGenerator:
    """The conversations the figures come from."""

    def test_no_question_shares_a_content_word_with_its_fact(self, bench: ModuleType) -> None:
        assert bench.paraphrase_gaps() == []

    def test_the_gap_check_catches_a_shared_word(self, bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
        leaky = bench.FactKind("leaky", "person", ("{e}'s allergy is {v}.",), ("What allergies does {e} have?",), ("kiwi",))
        monkeypatch.setattr(bench, "FACTS", [*bench.FACTS, leaky])
        assert bench.paraphrase_gaps() == ["leaky: \"{e}'s allergy is {v}.\" / 'What allergies does {e} have?' share ['allergy']"]

    def test_same_seed_same_conversations(self, bench: ModuleType) -> None:
        one, two = bench.generate(11, 2), bench.generate(11, 2)
        assert [c.history for c in one] == [c.history for c in two]
        assert [c.history for c in one] != [c.history for c in bench.generate(12, 2)]

    def test_facts_are_old_and_the_history_is_long(self, bench: ModuleType) -> None:
        counter = TokenCounter()
        for conv in bench.generate(3, 3):
            assert len(conv.probes) == 5
            assert sum(counter.message(m) for m in conv.history) > 10 * 5000
            for probe in conv.probes:
                where = [i for i, m in enumerate(conv.history) if probe.fact in m["content"]]
                assert len(where) == 1 and where[0] < len(conv.history) - 6
                assert probe.fact not in probe.question


class TestBaselines:
    """The two published methods stay within the budget and keep the last 6."""

    @pytest.mark.parametrize("method", ["published_rules", "textbook_bm25"])
    def test_budget_and_recent(self, bench: ModuleType, method: str) -> None:
        if method == "textbook_bm25":
            pytest.importorskip("rank_bm25", reason="textbook BM25 comes from rank_bm25 (pip install rank_bm25)")
        counter = TokenCounter()
        conv = bench.generate(5, 1)[0]
        messages = conv.history + [{"role": "user", "content": conv.probes[0].question}]
        sent = getattr(bench, method)(messages, conv.probes[0].question, 5000, counter)
        assert sum(counter.message(m) for m in sent) <= 5000
        assert sent[-6:] == messages[-6:]

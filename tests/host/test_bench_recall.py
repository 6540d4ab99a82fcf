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


@pytest.fixture(scope="module")
def hard(bench: ModuleType) -> ModuleType:
    return importlib.import_module("recall_corpus")  # beside bench_recall, which put scripts/ on the path


class TestHardCorpus:
    """scripts/recall_corpus.py: two splits that share neither seed nor words, facts whose subject
    is everywhere, and questions that paraphrase."""

    @pytest.mark.parametrize("split", ["dev", "held"])
    def test_no_question_shares_a_content_word_with_its_fact(self, hard: ModuleType, split: str) -> None:
        assert hard.gaps(split) == []

    def test_the_gap_check_catches_a_shared_word(self, hard: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
        cast, kinds, chatter, talk = hard.SPLITS["dev"]
        leaky = hard.K("leaky", "person", ("{e}'s allergy is {v}",), ("what allergies does {e} have?",), ("kiwi",), ())
        monkeypatch.setitem(hard.SPLITS, "dev", (cast, [*kinds, leaky], chatter, talk))
        assert hard.gaps("dev") == ["dev/leaky: \"{e}'s allergy is {v}\" / 'what allergies does {e} have?' share ['allergy']"]

    def test_the_splits_differ_in_seed_names_and_templates(self, hard: ModuleType) -> None:
        dev, held = hard.SPLITS["dev"], hard.SPLITS["held"]
        assert hard.SEEDS["dev"] != hard.SEEDS["held"]
        for entity in dev[0]:
            assert not set(dev[0][entity]) & set(held[0][entity])
        texts = {split: {t for k in hard.SPLITS[split][1] for t in (*k.statements, *k.questions, *k.near)} for split in ("dev", "held")}
        assert not texts["dev"] & texts["held"] and not set(dev[2]) & set(held[2])

    def test_same_seed_same_conversations(self, hard: ModuleType) -> None:
        assert [c.history for c in hard.generate("dev", 2)] == [c.history for c in hard.generate("dev", 2)]
        assert [c.history for c in hard.generate("dev", 1)] != [c.history for c in hard.generate("dev", 1, seed=5)]

    @pytest.mark.parametrize("split", ["dev", "held"])
    def test_long_sessions_whose_subjects_are_named_everywhere(self, hard: ModuleType, split: str) -> None:
        counter = TokenCounter()
        for conv in hard.generate(split, 3):
            assert 350 <= len(conv.history) <= 380 and sum(counter.message(m) for m in conv.history) > 5 * 5000
            assert len(conv.probes) == 10
            for probe in conv.probes:
                where = [i for i, m in enumerate(conv.history) if probe.fact in str(m["content"])]
                assert len(where) == 1 and where[0] < len(conv.history) - 6 and probe.fact not in probe.question
                if probe.kind not in hard.unnamed(split):
                    subject = next(e for pool in hard.SPLITS[split][0].values() for e in pool if e in probe.question)
                    naming = [m for m in conv.history if subject.lower() in str(m["content"]).lower()]
                    assert len(naming) >= 10, (subject, len(naming))

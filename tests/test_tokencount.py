"""Token facts, kept once: the bundled tokenizers, the exact counter, the measured ratios."""

from __future__ import annotations

import pytest

from facade.catalogue.discovery import discover
from facade.catalogue.served import ServedCatalogues
from facade.tokencount import (
    BOUND_CHARS_PER_TOKEN,
    BUNDLED,
    CHARS_PER_TOKEN,
    bundled_name,
    count,
    count_exact,
    count_parts,
    encoding,
    estimate,
    upper_bound,
)
from facade.settings import DEMO_AGENTS

# How far the measured ratio may drift from an exact count before it needs re-measuring with
# scripts/bench_budget.py (2.6% at worst on 2026-12-01).
DRIFT = 0.05


def corpora() -> dict[str, str]:
    registry = discover()
    catalogue = ServedCatalogues(registry).serve(list(registry)).json
    prose = "\n".join(
        (DEMO_AGENTS / a / f).read_text() for a in ("atlas", "francis", "infra") for f in ("TOOLS.md", "SYSTEM.md")
    )
    return {"json": catalogue, "prose": prose}


class TestNames:
    """A tokenizer name resolves to a bundled encoding, or to None and an estimate."""

    def test_aliases_and_unknowns(self) -> None:
        assert [bundled_name(n) for n in ("o200k", "Qwen", "llama-3", "cl100k_base")] == ["o200k_base", "qwen3", "llama3", "cl100k_base"]
        assert bundled_name("gemma") is None and bundled_name(None) is None and bundled_name("") is None

    def test_an_unknown_encoding_names_the_fix(self) -> None:
        with pytest.raises(RuntimeError, match="no bundled tokenizer 'gemma'.*quicktok"):
            encoding("gemma")

    def test_special_token_text_is_text(self) -> None:
        assert count_exact("say <|endoftext|> out loud") > 3


class TestCounts:
    """Exact where a tokenizer is bundled, labelled where a ratio estimates."""

    def test_sources(self) -> None:
        assert count("hello world", "qwen3", "prose").source == "measured"
        guessed = count("x" * 87, "gemma", "json")
        assert (guessed.tokens, guessed.source, guessed.tokenizer) == (20, "estimate", "4.35 chars/token (json)")

    @pytest.mark.parametrize("tokenizer", [*BUNDLED, None])
    def test_parts_sum_to_the_whole(self, tokenizer: str | None) -> None:
        parts = ['[{"name":"a.b","description":"Crème brûlée"},', '{"name":"東京"},', "", '{"x":1}]']
        whole, shares = count_parts(parts, tokenizer, "json")
        assert whole == count("".join(parts), tokenizer, "json")
        assert len(shares) == len(parts) and sum(shares) == whole.tokens and shares[2] == 0
        # Each part's share is its own count, give or take the token that straddles its end.
        for part, share in zip(parts, shares):
            assert abs(share - count(part, tokenizer, "json").tokens) <= 2


class TestMeasuredRatios:
    """The ratios still describe this project's text, and the bound still overcounts it."""

    @pytest.mark.parametrize("tokenizer", BUNDLED)
    def test_within_drift_of_exact(self, tokenizer: str) -> None:
        for kind, text in corpora().items():
            exact = count_exact(text, tokenizer)
            assert abs(estimate(text, kind) - exact) <= DRIFT * exact, (kind, tokenizer, len(text) / exact)
            assert upper_bound(text) > exact, (kind, tokenizer)

    def test_the_bound_sits_under_every_ratio(self) -> None:
        assert BOUND_CHARS_PER_TOKEN < min(CHARS_PER_TOKEN.values())

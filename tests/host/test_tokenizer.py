"""The host counts with the server's token facts (facade/tokencount.py): the same exact count
for a bundled tokenizer, an overcount where none is bundled."""

from __future__ import annotations

import pytest

from facade.host.tokenizer import MESSAGE_OVERHEAD, TokenCounter
from facade.tokencount import BUNDLED, count, count_exact

TEXT = "Move the standup to 10:30 and tell ams-db-02's owners. {\"task_id\": 42}"


class TestTokenCounter:
    """One counter per encoding; exact counts agree with the budget's."""

    @pytest.mark.parametrize("name", BUNDLED)
    def test_the_same_count_as_the_budget(self, name: str) -> None:
        counter = TokenCounter(name)
        assert counter.source == "measured" and counter.name == name
        assert counter.count(TEXT) == count_exact(TEXT, name) == count(TEXT, name, "prose").tokens

    def test_the_estimate_overcounts_the_budgets(self) -> None:
        counter = TokenCounter(None)
        assert counter.source == "estimate" and counter.name == "estimate (3.5 chars/token)"
        assert counter.count(TEXT) > count(TEXT, None, "prose").tokens
        assert counter.message({"role": "user", "content": TEXT}) == MESSAGE_OVERHEAD + counter.count(TEXT)

    def test_an_unbundled_name_says_what_exists(self) -> None:
        with pytest.raises(ValueError, match="no offline tokenizer named 'gemma'; use one of o200k_base"):
            TokenCounter("gemma")

"""The one reversible mapping between facade names and provider-safe tool names."""

from __future__ import annotations

import re

import pytest

from facade.catalogue.discovery import discover
from facade.host.names import ToolNameError, from_provider, to_provider

PROVIDER_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # OpenAI's and Anthropic's tool-name pattern


class TestMapping:
    """Every capability the facade serves crosses the boundary and comes back unchanged."""

    def test_every_registered_capability_round_trips(self) -> None:
        names = [c.name for c in discover()]
        assert len(names) >= 400  # a floor: the catalogue only grows
        safe = [to_provider(n) for n in names]
        assert all(PROVIDER_RULE.match(s) for s in safe)
        assert len(set(safe)) == len(names)
        assert [from_provider(s) for s in safe] == names

    def test_a_dotted_name_from_the_model_is_accepted_as_is(self) -> None:
        assert from_provider("finance.invoice_create") == "finance.invoice_create"
        assert from_provider("made up") == "made up"  # left for the loop to refuse with the real names

    @pytest.mark.parametrize("name", ["Finance.invoice", "finance", "finance.invoice-create", "a.b.c", "x." + "y" * 70])
    def test_names_outside_the_grammar_are_refused(self, name: str) -> None:
        with pytest.raises(ToolNameError):
            to_provider(name)

"""Identity resolution: the bearer wins, runtimes inject, dev tokens live on loopback only."""

from __future__ import annotations

import pytest

from facade.catalogue.agents import load_agents
from facade.catalogue.discovery import discover
from facade.errors import IdentityError
from facade.access.identity import (
    DEV_OPERATOR_TOKEN,
    DEV_RUNTIME_TOKEN,
    Caller,
    TokenBook,
    bearer_of,
    resolve_caller,
    resolve_conversation,
)
from tests.support import DEV, REPO

AGENTS = load_agents(REPO / "agents", discover(), environ={})


@pytest.fixture
def book() -> TokenBook:
    return TokenBook(AGENTS, on_loopback=True)


class TestCaller:
    """resolve_caller follows DESIGN's order and never echoes a token."""

    def test_agent_bearer_wins_over_injected(self, book: TokenBook) -> None:
        assert resolve_caller(book, bearer=DEV["atlas"], injected=DEV["francis"]) == Caller("atlas")

    def test_runtime_bearer_takes_the_injected_agent(self, book: TokenBook) -> None:
        assert resolve_caller(book, bearer=DEV_RUNTIME_TOKEN, injected=DEV["infra"]) == Caller("infra", True)
        with pytest.raises(IdentityError, match="runtime token.*missing"):
            resolve_caller(book, bearer=DEV_RUNTIME_TOKEN, injected=None)

    def test_injected_only(self, book: TokenBook) -> None:
        assert resolve_caller(book, bearer=None, injected=DEV["francis"]) == Caller("francis")

    def test_unknown_or_missing(self, book: TokenBook) -> None:
        with pytest.raises(IdentityError) as unknown:
            resolve_caller(book, bearer="guess-me", injected=None)
        assert "guess-me" not in str(unknown.value)
        with pytest.raises(IdentityError, match="no agent token"):
            resolve_caller(book, bearer=None, injected=None)
        with pytest.raises(IdentityError, match="operator token cannot call tools"):
            resolve_caller(book, bearer=DEV_OPERATOR_TOKEN, injected=None)

    def test_dev_tokens_only_on_loopback(self) -> None:
        public = TokenBook(AGENTS, on_loopback=False, runtime_tokens=["rt"], operator_token="op")
        assert public.lookup(DEV["atlas"]) is None
        assert public.lookup(DEV_RUNTIME_TOKEN) is None and public.lookup("rt") is not None
        assert public.lookup(DEV_OPERATOR_TOKEN) is None and public.lookup("op") is not None

    @pytest.mark.parametrize(
        ("header", "token"),
        [("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("Basic abc", None), ("Bearer", None), (None, None)],
    )
    def test_bearer_header(self, header: str | None, token: str | None) -> None:
        assert bearer_of(header) == token


class TestConversation:
    """Injected id, then header, then _meta, then the session id."""

    def test_order(self) -> None:
        every = {"injected": "i", "header": "h", "meta": {"conversation_id": "m"}, "session_id": "s"}
        assert resolve_conversation(**every) == "i"
        assert resolve_conversation(**{**every, "injected": None}) == "h"
        assert resolve_conversation(**{**every, "injected": "", "header": None}) == "m"
        assert resolve_conversation(injected=None, header=None, meta=None, session_id="s") == "s"
        assert resolve_conversation(injected=None, header=None, meta=None, session_id=None) is None

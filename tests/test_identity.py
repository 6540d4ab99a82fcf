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
    checked_conversation,
    resolve_caller,
    resolve_conversation,
)
from facade.settings import DEMO_AGENTS
from tests.support import DEV

AGENTS = load_agents(DEMO_AGENTS, discover(), environ={})


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
    """An agent's own connection: the transport's conversation (header, then _meta, then the
    session id) whenever it carries one, the injected argument only when it carries none. A
    runtime token: the injected argument first."""

    EVERY = {"injected": "i", "header": "h", "meta": {"conversation_id": "m"}, "session_id": "s"}

    def test_agent_order(self) -> None:
        every = self.EVERY
        assert resolve_conversation(**every) == "h"
        assert resolve_conversation(**{**every, "header": None}) == "m"
        assert resolve_conversation(**{**every, "header": "", "meta": None}) == "s"
        assert resolve_conversation(injected="i", header=None, meta=None, session_id=None) == "i"
        assert resolve_conversation(injected=None, header=None, meta=None, session_id="s") == "s"
        assert resolve_conversation(injected=None, header=None, meta=None, session_id=None) is None

    def test_runtime_order(self) -> None:
        every = self.EVERY
        assert resolve_conversation(**every, via_runtime=True) == "i"
        assert resolve_conversation(**{**every, "injected": None}, via_runtime=True) == "h"
        assert resolve_conversation(**{**every, "injected": " ", "header": None}, via_runtime=True) == "m"

    def test_a_disagreeing_argument_is_ignored_on_an_agent_connection(self) -> None:
        # The argument names another conversation; the transport's wins, and the argument is not
        # even checked (a model's stray value must not break a call whose transport is fine).
        assert resolve_conversation(injected="A", header="B", meta=None, session_id=None) == "B"
        assert resolve_conversation(injected="bad/id", header=None, meta=None, session_id="abc123") == "abc123"


class TestConversationIdRule:
    """One rule for every conversation id that enters: a bounded length and a safe charset."""

    @pytest.mark.parametrize(
        "good",
        [
            "a",
            "9f3c2b7e4d1a4b0c8e6f5a4b3c2d1e0f",  # the SDK's MCP session id (uuid4 hex)
            "3f2b8c1e-0d4a-4e5b-9c6d-7e8f9a0b1c2d",  # a uuid
            "20261130-101010-a1b2c3",  # a host session id
            "stdio-0123456789ab",  # a stdio process
            "agent:main:42",  # a runtime's session key
            "user@example.org.chat_7",
            "x" * 128,
        ],
    )
    def test_accepted(self, good: str) -> None:
        assert checked_conversation(good, "here") == good
        assert resolve_conversation(injected=None, header=good, meta=None, session_id=None) == good

    @pytest.mark.parametrize(
        ("bad", "problem"),
        [
            ("a\x1fb", "contains '\\x1f'"),
            ("a/b", "contains '/'"),
            ("../../etc", "contains '/'"),
            ("a b", "contains ' '"),
            ("caf\u00e9", "contains '\\xe9'"),
            ("a\tb", "contains '\\t'"),
            ("'; DROP TABLE cards; --", "contains \"'\""),
            ("x" * 129, "is 129 characters long"),
        ],
    )
    def test_refused_with_what_to_change(self, bad: str, problem: str) -> None:
        with pytest.raises(IdentityError) as refused:
            resolve_conversation(injected=None, header=bad, meta=None, session_id="fine")
        message = str(refused.value)
        assert "X-Conversation-Id header" in message and problem in message, message
        assert "1 to 128 characters from A-Z a-z 0-9 . _ : @ -" in message
        assert bad not in message or len(bad) == 1

    @pytest.mark.parametrize(
        ("where", "source"),
        [
            ({"meta": {"conversation_id": "a/b"}}, "_meta.conversation_id"),
            ({"session_id": "a/b"}, "the MCP session id"),
            ({"injected": "a/b"}, "the conversation_id argument"),
        ],
    )
    def test_every_source_is_checked_and_named(self, where: dict[str, object], source: str) -> None:
        args: dict[str, object] = {"injected": None, "header": None, "meta": None, "session_id": None, **where}
        with pytest.raises(IdentityError, match=source.replace(".", r"\.")):
            resolve_conversation(**args)  # type: ignore[arg-type]

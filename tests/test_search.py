"""`skills.tool_search` (issue 15): a ranking of the caller's tools by what it wants done, with
what each needs before it can be called; it grants nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from facade.access.cards import MemoryCards
from facade.access.elevation import MemoryElevations
from facade.access.identity import TokenBook
from facade.catalogue.agents import Agent
from facade.catalogue.discovery import discover
from facade.catalogue.search import ToolIndex, packaged_vectors, semantic_text
from facade.retrieval.lexical import digest
from facade.catalogue.views import Views
from facade.serving.calls import CallRequest, Calls

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def registry() -> Any:
    return discover()


@pytest.fixture(scope="module")
def words_only(registry: Any) -> ToolIndex:
    return ToolIndex(registry)


class TestPackagedEmbeddings:
    def test_every_built_in_tool_is_in_the_packaged_table(self, registry: Any) -> None:
        """A changed description must come with a rebuilt table, or every start embeds it."""
        stale = [c.name for c in registry if digest(semantic_text(c)) not in packaged_vectors()]
        assert stale == [], f"run `python scripts/embed_catalogue.py`: {stale[:5]}"


class TestLexical:
    def test_stop_words_find_nothing(self, words_only: ToolIndex) -> None:
        """The old search counted "a", "the" and "on" as substrings of almost every description."""
        assert words_only.rank("a the on of to") == []

    def test_inflections_meet(self, words_only: ToolIndex) -> None:
        names = [c.name for c, _ in words_only.rank("forwarding emails", limit=3)]
        assert "mail.message_forward" in names

    def test_only_the_given_tools_are_ranked(self, words_only: ToolIndex) -> None:
        among = {"projects.project_create", "projects.task_create"}
        assert {c.name for c, _ in words_only.rank("create a new project", among=among)} <= among
        assert [c.name for c, _ in words_only.rank("create a new project", among=among)][0] == "projects.project_create"


def agent_with(apps: dict[str, str]) -> Agent:
    return Agent("seeker", "", "", None, None, None, "facade-dev-seeker", True, apps, Path("."))


class TestThroughACall:
    """Through `Calls`, as an agent: its apps only, and what a found tool needs."""

    async def test_a_found_full_tool_says_it_needs_an_elevation(self, registry: Any) -> None:
        agent = agent_with({"projects": "core", "skills": "core"})
        views = Views(registry, {"seeker": agent}, MemoryElevations())
        calls = Calls(views, TokenBook({"seeker": agent}, on_loopback=True), None, MemoryCards(), None)  # type: ignore[arg-type]
        request = CallRequest(
            "skills.tool_search", {"query": "move a task to another project", "limit": 50}, bearer="facade-dev-seeker"
        )
        outcome = await calls.run(request)
        assert outcome.ok, outcome
        found = {row["name"]: row for row in outcome.data["tools"]}  # type: ignore[index]
        assert all(name.split(".")[0] in ("projects", "skills") for name in found)
        moved = found["projects.task_move"]
        assert moved["callable_now"] is False and "skills.elevate" in moved["needs"]
        core = next(row for row in found.values() if row["callable_now"])
        assert core["needs"] == "nothing" or "approves" in core["needs"] or "asks" in core["needs"]

    async def test_a_tool_announced_by_a_wire_name_is_found_and_described_by_it(self) -> None:
        """The conformance fixtures are listed as `test_*`: search names them so, and describing
        takes that name as well as the capability's."""
        registry = discover(["tests.fixtures.conformance_domain"])
        agent = agent_with({"conformance": "full", "skills": "full"})
        views = Views(registry, {"seeker": agent}, MemoryElevations())
        calls = Calls(views, TokenBook({"seeker": agent}, on_loopback=True), None, MemoryCards(), None)  # type: ignore[arg-type]
        listed = {c.tool_name for c in views.view(agent, None)}
        found = await calls.run(CallRequest("skills.tool_search", {"query": "simple text content", "limit": 50}, bearer="facade-dev-seeker"))
        assert found.ok, found
        names = [row["name"] for row in found.data["tools"]]  # type: ignore[index]
        assert "test_simple_text" in names and set(names) <= listed
        for name in ("test_simple_text", "conformance.simple_text"):
            described = await calls.run(CallRequest("skills.tool_describe", {"name": name}, bearer="facade-dev-seeker"))
            assert described.ok, described
            assert described.data["tool"]["name"] == "test_simple_text" and described.data["available_now"] is True  # type: ignore[index]

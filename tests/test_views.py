"""The mode rule and the views built on it: the order of `effective_mode`, one read of the
elevations per question, and apps that agree with the view they come from."""

from __future__ import annotations

from pathlib import Path

from facade.catalogue.agents import Agent, load_agents
from facade.catalogue.discovery import discover
from facade.access.elevation import MemoryElevations
from facade.catalogue.modes import effective_mode
from facade.catalogue.views import Views

REGISTRY = discover()


class CountingElevations(MemoryElevations):
    """Counts reads: over Redis each one is a round trip."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def elevated(self, agent: str, conversation: str) -> frozenset[str]:
        self.reads += 1
        return super().elevated(agent, conversation)


def probe(tmp_path: Path, apps: str) -> Agent:
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "agent.toml").write_text(f'name = "probe"\n[apps]\n{apps}')
    return load_agents(tmp_path, REGISTRY, environ={})["probe"]


class TestModeOrder:
    """An elevation beats the agent's setting, which beats the domain's default."""

    def test_order(self, tmp_path: Path) -> None:
        agent = probe(tmp_path, 'files = "core"\ndocker = "default"\nprojects = "default"\n')
        elevations = MemoryElevations()
        files, docker, projects = (REGISTRY.domains[n] for n in ("files", "docker", "projects"))
        assert (docker.default_mode, projects.default_mode) == ("core", "full")
        assert effective_mode(agent, files, "c", elevations) == "core"
        assert effective_mode(agent, docker, "c", elevations) == "core"
        assert effective_mode(agent, projects, "c", elevations) == "full"
        elevations.grant("probe", "c", "files")
        assert effective_mode(agent, files, "c", elevations) == "full"
        assert effective_mode(agent, files, "other", elevations) == "core"
        assert effective_mode(agent, files, None, elevations) == "core"


class TestOneRead:
    """A listing reads the conversation's elevations once, however many apps the agent has."""

    def test_view_modes_and_apps_read_once(self, tmp_path: Path) -> None:
        agent = probe(tmp_path, 'files = "core"\nphotos = "core"\nprojects = "core"\nmail = "core"\n')
        elevations = CountingElevations()
        views = Views(REGISTRY, {"probe": agent}, elevations)
        for question in (views.view, views.modes, views.apps):
            elevations.reads = 0
            question(agent, "c")
            assert elevations.reads == 1, question.__name__

    def test_no_conversation_reads_nothing(self, tmp_path: Path) -> None:
        agent = probe(tmp_path, 'files = "core"\nphotos = "core"\n')
        elevations = CountingElevations()
        Views(REGISTRY, {"probe": agent}, elevations).view(agent, None)
        assert elevations.reads == 0


class TestApps:
    """`apps` is the view grouped by app, with the modes that produced it."""

    def test_apps_match_the_view_before_and_after_an_elevation(self, tmp_path: Path) -> None:
        agent = probe(tmp_path, 'files = "core"\nprojects = "full"\nskills = "default"\n')
        elevations = MemoryElevations()
        views = Views(REGISTRY, {"probe": agent}, elevations)
        for _ in range(2):
            apps = views.apps(agent, "c")
            assert [a.domain.name for a in apps] == list(views.modes(agent, "c"))
            assert {a.domain.name: a.mode for a in apps} == views.modes(agent, "c")
            assert [c for a in apps for c in a.tools] == list(views.view(agent, "c"))
            assert all(c.domain == a.domain.name for a in apps for c in a.tools)
            elevations.grant("probe", "c", "files")
        files = next(a for a in views.apps(agent, "c") if a.domain.name == "files")
        assert files.mode == "full" and len(files.tools) == len(files.domain.capabilities)


class TestView:
    """One object lists and resolves: a tool the view does not list, it does not find."""

    def test_resolve_finds_exactly_what_is_served(self, tmp_path: Path) -> None:
        agent = probe(tmp_path, 'files = "core"\nprojects = "full"\n')
        view = Views(REGISTRY, {"probe": agent}, MemoryElevations()).view(agent, "c")
        served = set(view.served.names)
        assert served == {c.name for c in view} and served
        for capability in REGISTRY:
            assert (view.resolve(capability.name) is capability) == (capability.name in served), capability.name
        assert view.resolve("files.no_such_tool") is None
        assert all(REGISTRY.get(n).domain in ("files", "projects") for n in served)  # type: ignore[union-attr]
        assert any(c.domain == "files" and c.tier == "full" for c in REGISTRY) and not any(
            view.resolve(c.name) for c in REGISTRY if c.domain == "files" and c.tier == "full"
        )

    def test_cached_by_modes_and_changed_by_an_elevation(self, tmp_path: Path) -> None:
        agent = probe(tmp_path, 'files = "core"\n')
        elevations = MemoryElevations()
        views = Views(REGISTRY, {"probe": agent}, elevations)
        assert views.view(agent, "a") is views.view(agent, "b") is views.view(agent, None)
        elevations.grant("probe", "a", "files")
        elevated = views.view(agent, "a")
        assert elevated is not views.view(agent, "b") and elevated.modes == {"files": "full"}
        hidden = next(c for c in REGISTRY if c.domain == "files" and c.tier == "full")
        assert elevated.resolve(hidden.name) is hidden and views.view(agent, "b").resolve(hidden.name) is None
        assert elevated.served is elevated.served  # computed once per view

"""Views: which capabilities an agent sees and may call in a conversation.

A `View` is one object for both questions: `tools/list` serves `view.served`, and `tools/call`
finds its capability with `view.resolve(name)`, so a tool outside the view is simply not found.
Both come from one reading of `effective_modes` (facade/catalogue/modes.py) and one filter by
`is_visible`, so what is listed and what is enforced can never disagree.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from facade.catalogue.search import ToolIndex, default_embedder
from facade.catalogue.agents import Agent
from facade.catalogue.disclosure import always_loaded, deferred
from facade.catalogue.modes import Elevated, effective_modes, is_visible
from facade.catalogue.registry import Registry
from facade.catalogue.served import Served, ServedCatalogues
from facade.kit.capability import Capability, Mode
from facade.kit.domain import Domain


@dataclass(frozen=True, slots=True)
class App:
    """One of an agent's apps as a conversation sees it: its mode and the tools it shows."""

    domain: Domain
    mode: Mode
    tools: tuple[Capability, ...]


@dataclass(frozen=True, eq=False)
class View:
    """What one agent lists and may call under one set of modes. Shared, read-only, by every
    conversation whose modes are the same (the cache key), so it names no conversation.

    Attributes:
        agent: whose view it is.
        modes: the mode of each of the agent's apps, in registry order.
        tools: the visible capabilities, in registry order (iterating the view yields them).
        apps: the tools grouped by app, with the mode that chose them.
    """

    agent: Agent
    modes: Mapping[str, Mode]
    tools: tuple[Capability, ...]
    apps: tuple[App, ...]
    _by_name: dict[str, Capability] = field(repr=False)
    _catalogues: Callable[[], ServedCatalogues] = field(repr=False)

    def resolve(self, name: str) -> Capability | None:
        """The capability `name` names, if this view shows it; anything else is not found."""
        return self._by_name.get(name)

    @cached_property
    def served(self) -> Served:
        """The announced tools of this view, with their wire form per era (cached); in "search"
        disclosure the tools outside the always-loaded set are marked deferred."""
        return self._catalogues().serve(self.tools, deferred(self.agent, self.tools))

    @cached_property
    def always_loaded(self) -> Served:
        """The tools a deferring host gives the model from the start (all of them, unless the
        agent discloses by search), as announced."""
        return self._catalogues().serve(always_loaded(self.agent, self.tools))

    def __iter__(self) -> Iterator[Capability]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)


class Views:
    """Per-agent views over the registry; a view is cached by the modes that produced it.

    `served` is the server's announced-tool cache; without one (a report, a test) it is built
    on first use of a view's `served`.
    """

    def __init__(
        self,
        registry: Registry,
        agents: Mapping[str, Agent],
        elevations: Elevated,
        served: ServedCatalogues | None = None,
    ) -> None:
        self.registry = registry
        self.agents = agents
        self.elevations = elevations
        self._served = served
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, tuple[tuple[str, Mode], ...]], View] = {}
        self._index: ToolIndex | None = None

    def index(self) -> ToolIndex:
        """The search ranking over the whole registry, built on first use (each search then
        ranks only the caller's tools)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = ToolIndex(self.registry, embedder=default_embedder())
        return self._index

    def catalogues(self) -> ServedCatalogues:
        if self._served is None:
            with self._lock:
                if self._served is None:
                    self._served = ServedCatalogues(self.registry)
        return self._served

    @property
    def reads_without_io(self) -> bool:
        """Whether finding a view does no I/O (elevations in memory): then it needs no thread."""
        return getattr(self.elevations, "in_memory", False) is True

    def modes(self, agent: Agent, conversation: str | None) -> dict[str, Mode]:
        """The mode of each domain in the agent's `[apps]`, in registry order. Reads the
        conversation's elevations (over Redis, a round trip): call it off the event loop."""
        domains = [d for name, d in self.registry.domains.items() if name in agent.apps]
        return effective_modes(agent, domains, conversation, self.elevations)

    def view(self, agent: Agent, conversation: str | None) -> View:
        """The agent's view in the conversation, from one reading of its modes (a view and
        modes read apart could straddle an elevation). Call it off the event loop."""
        modes = self.modes(agent, conversation)
        key = (agent.name, tuple(modes.items()))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache.setdefault(key, self._build(agent, modes))
        return cached

    def apps(self, agent: Agent, conversation: str | None) -> tuple[App, ...]:
        return self.view(agent, conversation).apps

    def _build(self, agent: Agent, modes: dict[str, Mode]) -> View:
        tools = tuple(c for c in self.registry if c.domain in modes and is_visible(agent, c, modes[c.domain]))
        shown: dict[str, list[Capability]] = {name: [] for name in modes}
        for capability in tools:
            shown[capability.domain].append(capability)
        domains = self.registry.domains
        apps = tuple(App(domains[name], mode, tuple(shown[name])) for name, mode in modes.items())
        return View(agent, dict(modes), tools, apps, {n: c for c in tools for n in {c.name, c.tool_name}}, self.catalogues)

"""The one registry every capability lives in, and which every view iterates over."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from facade.kit.capability import Capability
from facade.kit.domain import Domain
from facade.errors import RegistryError


class Registry:
    """Domains and their capabilities by name, in registration order.

    Attributes:
        warnings: what the registry accepted but a person should look at (a third-party tier
            inferred from a verb, say), one line each; `facade check` shows them.
        third_party: the names of the domains that came from outside the bundled `domains`
            package; the project's own floors (`facade check`) do not bind them.
    """

    def __init__(self, domains: Iterable[Domain] = ()) -> None:
        self._domains: dict[str, Domain] = {}
        self._capabilities: dict[str, Capability] = {}
        # The capabilities whose wire name differs from their name, by that wire name: the others
        # are announced by their names, and a set of all 10,449 names was ~50 bytes per
        # capability (2026-12-04).
        self._wired: dict[str, Capability] = {}
        self._uris: set[str] = set()
        self._prompt_names: set[str] = set()
        self.warnings: list[str] = []
        self.third_party: set[str] = set()
        for domain in domains:
            self.add_domain(domain)

    def add_domain(self, domain: Domain, *, first_party: bool = True) -> None:
        """Register a domain; a clash or a capability outside its prefix names the offender."""
        if domain.name in self._domains:
            if self._domains[domain.name] is domain:
                return
            raise RegistryError(f"domain {domain.name!r} is registered twice (by two different modules)")
        problems: list[str] = []
        seen: set[str] = set()
        for cap in domain.capabilities:
            if cap.domain != domain.name:
                problems.append(f"capability {cap.name!r} is declared in domain {domain.name!r}")
            elif cap.name in seen or cap.name in self._capabilities:
                problems.append(f"capability {cap.name!r} is declared twice")
            elif cap.tool_name != cap.name and (cap.tool_name in seen or self.announced(cap.tool_name) is not None):
                problems.append(f"capability {cap.name!r}: its wire name {cap.tool_name!r} is taken")
            seen.update({cap.name, cap.tool_name})
        uris = [r.uri for r in domain.resources]
        prompts = [p.name for p in domain.prompts]
        problems += [f"resource {u!r} is declared twice" for u in sorted(set(uris)) if uris.count(u) > 1 or u in self._uris]
        problems += [f"prompt {n!r} is declared twice" for n in sorted(set(prompts)) if prompts.count(n) > 1 or n in self._prompt_names]
        if not domain.capabilities:
            problems.append(f"domain {domain.name!r} declares no capabilities")
        if problems:
            raise RegistryError("; ".join(problems))
        self._domains[domain.name] = domain
        if not first_party:
            self.third_party.add(domain.name)
        for cap in domain.capabilities:
            self._capabilities[cap.name] = cap
            if cap.tool_name != cap.name:
                self._wired[cap.tool_name] = cap
        self._uris.update(uris)
        self._prompt_names.update(prompts)

    def announced(self, tool_name: str) -> Capability | None:
        """The capability `tools/list` announces as `tool_name`: by its wire name, else its name."""
        wired = self._wired.get(tool_name)
        if wired is not None:
            return wired
        named = self._capabilities.get(tool_name)
        return named if named is not None and named.tool_name == tool_name else None

    def get(self, name: str) -> Capability | None:
        return self._capabilities.get(name)

    def domain(self, name: str) -> Domain | None:
        return self._domains.get(name)

    @property
    def domains(self) -> dict[str, Domain]:
        return dict(self._domains)

    def __iter__(self) -> Iterator[Capability]:
        return iter(self._capabilities.values())

    def __len__(self) -> int:
        return len(self._capabilities)

    def __contains__(self, name: object) -> bool:
        return name in self._capabilities

"""Finding domains: the bundled `domains/` package, the `facade.domains` entry-point group, and
the `FACADE_DOMAINS` setting (comma-separated module paths). Each source names modules (or
objects) that expose a `Domain` as `domain`.

A third-party domain (any source but the bundled package) should declare each capability's tier:
an inferred one follows the action's verb (`facade.kit.domain.tier_for`), so a rename can move a
tool between core and full without a word. Each such tier is a warning on the registry, logged
here and shown by `facade check`.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

import structlog

from facade.catalogue.registry import Registry
from facade.errors import RegistryError
from facade.kit.capability import Capability
from facade.kit.domain import Domain

ENTRY_POINT_GROUP = "facade.domains"
BUNDLED_PACKAGE = "domains"

# Through the standard library, so that the warning reaches stderr whether or not a command has
# configured logging: stdout is `facade stdio`'s transport and the data of `facade denylist`.
log = structlog.wrap_logger(logging.getLogger("facade.catalogue.discovery"))


@dataclass(frozen=True, slots=True)
class Source:
    """Where a domain module came from; `first_party` for the bundled package."""

    label: str
    target: Any
    first_party: bool


def discover(extra_modules: list[str] | None = None, *, bundled: bool = True) -> Registry:
    """Build the registry from every source; the same Domain found twice counts once."""
    registry = Registry()
    for source in _sources(extra_modules or [], bundled):
        domain = _domain_of(source.label, source.target)
        if registry.domain(domain.name) is domain:
            continue
        registry.add_domain(domain, first_party=source.first_party)
        if not source.first_party:
            for capability in domain.capabilities:
                if capability.tier_inferred:
                    _warn_inferred(registry, capability, source.label)
    return registry


def _warn_inferred(registry: Registry, capability: Capability, source: str) -> None:
    log.warning("tier_inferred", capability=capability.name, tier=capability.tier, source=source)
    how = "inferred from its action name"
    registry.warnings.append(
        f"tier: {capability.name} from {source} is {capability.tier!r}, {how}; a third-party domain "
        "declares every tier explicitly (tier='core' or tier='full') so that a rename cannot move it "
        "between core and full"
    )


def _sources(extra_modules: list[str], bundled: bool) -> list[Source]:
    found: list[Source] = []
    if bundled:
        package = importlib.import_module(BUNDLED_PACKAGE)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if not info.name.startswith("_"):
                path = f"{BUNDLED_PACKAGE}.{info.name}"
                found.append(Source(path, _import(path), first_party=True))
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found.append(Source(f"entry point {ep.name!r} ({ep.value})", ep.load(), first_party=False))
        except Exception as exc:
            raise RegistryError(f"entry point {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
    for path in extra_modules:
        found.append(Source(f"FACADE_DOMAINS module {path!r}", _import(path), first_party=False))
    return found


def _import(path: str) -> Any:
    try:
        return importlib.import_module(path)
    except RegistryError:
        raise
    except Exception as exc:
        raise RegistryError(f"domain module {path!r} failed to import: {exc}") from exc


def _domain_of(source: str, target: Any) -> Domain:
    domain = target if isinstance(target, Domain) else getattr(target, "domain", None)
    if not isinstance(domain, Domain):
        raise RegistryError(f"{source} exposes no `domain` (a facade.kit.Domain)")
    return domain

"""Finding domains: the bundled `domains/` package, the `facade.domains` entry-point group, and
the `FACADE_DOMAINS` setting (comma-separated module paths). Each source names modules (or
objects) that expose a `Domain` as `domain`."""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points
from typing import Any

from facade.kit.domain import Domain
from facade.errors import RegistryError
from facade.catalogue.registry import Registry

ENTRY_POINT_GROUP = "facade.domains"
BUNDLED_PACKAGE = "domains"


def discover(extra_modules: list[str] | None = None, *, bundled: bool = True) -> Registry:
    """Build the registry from every source; the same Domain found twice counts once."""
    registry = Registry()
    for source, target in _sources(extra_modules or [], bundled):
        registry.add_domain(_domain_of(source, target))
    return registry


def _sources(extra_modules: list[str], bundled: bool) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if bundled:
        package = importlib.import_module(BUNDLED_PACKAGE)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if not info.name.startswith("_"):
                found.append((f"{BUNDLED_PACKAGE}.{info.name}", _import(f"{BUNDLED_PACKAGE}.{info.name}")))
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found.append((f"entry point {ep.name!r} ({ep.value})", ep.load()))
        except Exception as exc:
            raise RegistryError(f"entry point {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
    for path in extra_modules:
        found.append((f"FACADE_DOMAINS module {path!r}", _import(path)))
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

"""Declaring capabilities: the `capability` decorator and `add`, shared by a `Domain` and by a
`Toolset`, the collector a concept module of a domain declares its capabilities into.

A toolset holds declarations only: it knows no domain name, so a concept module imports nothing
of its own package, and the package's `__init__` builds the `Domain` from its modules' toolsets
(dependencies point one way: `__init__` → concept modules → the kit). The domain then checks and
names every declaration, in the order of its toolsets — which is the listing order, and nothing
more: no example may rely on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from facade.kit.capability import Handler


class Declarer:
    """What a domain and a toolset both offer: `add(action, handler, **options)` and its
    decorator form. The options are those of `make_capability`; a missing `tier` is inferred
    from the action by the domain's tier criterion."""

    def add(self, action: str, handler: Handler, **options: Any) -> Any:
        raise NotImplementedError

    def capability(self, action: str, **options: Any) -> Callable[[Handler], Handler]:
        """Decorator form of `add`: the docstring is the description, the second parameter's
        annotation the input model. Returns the handler unchanged."""

        def register(handler: Handler) -> Handler:
            self.add(action, handler, **options)
            return handler

        return register


@dataclass(frozen=True, slots=True)
class Declaration:
    """One capability as a concept module declared it, before a domain names it."""

    action: str
    handler: Handler
    options: dict[str, Any]


@dataclass(eq=False)
class Toolset(Declarer):
    """The capabilities of one concept module, in declaration order.

    A module declares `tools = Toolset()` and decorates its handlers with `@tools.capability(...)`
    (or passes `tools` to `records.add_get` and the like); the package's `__init__` passes every
    module's toolset to `Domain(..., toolsets=(...))`.
    """

    declarations: list[Declaration] = field(default_factory=list)

    def add(self, action: str, handler: Handler, **options: Any) -> None:
        """Declare `<domain>.<action>`; the domain that takes this toolset checks it."""
        self.declarations.append(Declaration(action, handler, dict(options)))

"""A domain: a named group of capabilities with its own defaults, tables, migrations and seed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from facade.capability import DOMAIN_PATTERN, Capability, Handler, Mode, make_capability
from facade.errors import RegistryError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

Seed = Callable[["Session"], None]


@dataclass
class Domain:
    """What a domain module exposes as `domain`.

    Attributes:
        name: the prefix of every capability name (`projects` in `projects.task_create`).
        description: one line, shown in TOOLS.md beside the agent's apps.
        default_mode: the mode an agent gets with `"default"` in its `[apps]`; the six
            infrastructure domains use `core`, the others `full`.
        migrations: the folder of this domain's Alembic revisions (a branch labelled `name`).
        seed: fills an empty database with a small demo data set; must be idempotent.
    """

    name: str
    description: str = ""
    default_mode: Mode = "full"
    migrations: Path | None = None
    seed: Seed | None = None
    capabilities: list[Capability] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not DOMAIN_PATTERN.fullmatch(self.name or ""):
            raise RegistryError(f"domain {self.name!r}: a domain name is lowercase letters, digits and '_'")
        if self.default_mode not in ("core", "full"):
            raise RegistryError(f"domain {self.name!r}: default_mode must be 'core' or 'full'")

    def add(self, action: str, handler: Handler, **options: Any) -> Capability:
        """Declare `<domain>.<action>`; options as in `make_capability`."""
        cap = make_capability(f"{self.name}.{action}", handler, **options)
        self.capabilities.append(cap)
        return cap

    def capability(self, action: str, **options: Any) -> Callable[[Handler], Handler]:
        """Decorator form of `add`: the docstring is the description, the second parameter's
        annotation the input model."""

        def register(handler: Handler) -> Handler:
            self.add(action, handler, **options)
            return handler

        return register

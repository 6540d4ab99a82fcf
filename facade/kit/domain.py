"""A domain: a named group of capabilities with its own defaults, tables, migrations and seed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from facade.errors import RegistryError
from facade.kit.capability import DOMAIN_PATTERN, Capability, Handler, Mode, Tier, make_capability
from facade.kit.prompts import Argument, Prompt, Renderer, make_prompt
from facade.kit.resources import Completer, Reader, Resource, make_resource
from facade.kit.toolset import Declarer, Toolset

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings
    from sqlalchemy.orm import Session

Seed = Callable[["Session"], None]

# The tier criterion, written once. Core is create/read/update/delete plus the essential reads,
# what an agent needs in most conversations; full is the advanced and the rare — bulk work,
# export and import, raw dumps, statistics, administration — which an agent gets by asking
# (skills.elevate). A capability that says nothing gets the tier its action name implies; a
# domain overrides it only where it knows better, and says why beside the declaration.
CORE_VERBS = frozenset(
    {
        "create", "get", "list", "update", "delete", "search", "find", "read", "write", "add", "remove",
        "status", "stat", "move", "copy", "mkdir", "append", "assign", "unassign",
    }
)
FULL_MARKERS = frozenset(
    {
        "bulk", "batch", "many", "export", "import", "raw", "dump", "inspect", "stats", "statistics", "report",
        "archive", "unarchive", "restore", "purge", "prune", "admin", "duplicate", "merge", "audit",
        "history", "reindex", "recompute", "rebuild",
    }
)


def tier_for(action: str) -> Tier:
    """The default tier of an action by the criterion above."""
    parts = action.split("_")
    if FULL_MARKERS.intersection(parts):
        return "full"
    return "core" if parts[-1] in CORE_VERBS or parts[0] in CORE_VERBS else "full"


@dataclass
class Domain(Declarer):
    """What a domain module exposes as `domain`.

    Attributes:
        name: the prefix of every capability name (`projects` in `projects.task_create`).
        description: one line, shown in TOOLS.md beside the agent's apps.
        default_mode: the mode an agent gets with `"default"` in its `[apps]`; the six
            infrastructure domains use `core`, the others `full`.
        migrations: the folder of this domain's Alembic revisions (a branch labelled `name`).
        seed: fills an empty database with a small demo data set; must be idempotent.
        toolsets: the domain's concept modules' toolsets; their capabilities come first, in
            this order (the listing order), before any added with `add` or `capability`.
        settings: the domain's settings model (`FACADE_<NAME>_*`, read with `settings_reader`);
            declared here so that `facade settings` lists them and the server knows their names.
        resources: what a client may read by URI (`resource`); prompts: message templates a
            client offers its user (`prompt`). Both are listed to the agents that have this app.
    """

    name: str
    description: str = ""
    default_mode: Mode = "full"
    migrations: Path | None = None
    seed: Seed | None = None
    toolsets: Sequence[Toolset] = ()
    settings: type[BaseSettings] | None = None
    capabilities: list[Capability] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not DOMAIN_PATTERN.fullmatch(self.name or ""):
            raise RegistryError(f"domain {self.name!r}: a domain name is lowercase letters, digits and '_'")
        if self.default_mode not in ("core", "full"):
            raise RegistryError(f"domain {self.name!r}: default_mode must be 'core' or 'full'")
        prefix = f"FACADE_{self.name.upper()}_"
        if self.settings is not None and self.settings.model_config.get("env_prefix") != prefix:
            raise RegistryError(
                f"domain {self.name!r}: its settings {self.settings.__name__} must be read from {prefix}* "
                f"(model_config = SettingsConfigDict(env_prefix={prefix!r}))"
            )
        for toolset in self.toolsets:
            for declared in toolset.declarations:
                self.add(declared.action, declared.handler, **declared.options)

    def add(self, action: str, handler: Handler, **options: Any) -> Capability:
        """Declare `<domain>.<action>`; options as in `make_capability`, the tier by default
        from `tier_for`."""
        if options.get("tier") is None:
            options["tier"] = tier_for(action)
            options["tier_inferred"] = True
        cap = make_capability(f"{self.name}.{action}", handler, **options)
        self.capabilities.append(cap)
        return cap

    def resource(
        self,
        uri: str,
        *,
        name: str,
        description: str | None = None,
        mime_type: str = "text/plain",
        complete: dict[str, Completer] | None = None,
    ) -> Callable[[Reader], Reader]:
        """Decorator: declare a resource read by the decorated `(ctx, params)` function."""

        def register(read: Reader) -> Reader:
            self.resources.append(
                make_resource(uri, read, name=name, description=description, mime_type=mime_type, complete=complete)
            )
            return read

        return register

    def prompt(
        self, name: str, *, description: str | None = None, arguments: Sequence[Argument] = ()
    ) -> Callable[[Renderer], Renderer]:
        """Decorator: declare a prompt rendered by the decorated `(arguments)` function."""

        def register(render: Renderer) -> Renderer:
            self.prompts.append(make_prompt(name, render, description=description, arguments=arguments))
            return render

        return register

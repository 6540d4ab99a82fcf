"""Every setting the server reads, from its models (the core `Settings` and each domain's
declared `settings`): `facade settings` lists them with their source and value, the README's
table is rendered from them, and a `FACADE_*` name or config-file key outside them is an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pydantic_settings import BaseSettings

from facade.catalogue.registry import Registry
from facade.errors import ConfigError
from facade.kit.domain_settings import SHOWN_DEFAULT, file_key, from_file, variables
from facade.settings import AGENT_TOKEN_PREFIX, Settings, closest, file_values, redact_url

Source = Literal["default", "facade.toml", "environment", "flag"]
# A string value of a setting whose name has one of these words is shown masked.
SECRET_WORDS = frozenset({"token", "tokens", "secret", "password", "key"})


@dataclass(frozen=True)
class Declared:
    """One setting as its model declares it.

    Attributes:
        variable: its environment variable (`FACADE_FILES_ROOT`).
        field: the model's field name (`root`).
        info: the field: default, description, constraints.
        model: the settings model holding it.
        domain: the domain it belongs to; None for the server's own.
    """

    variable: str
    field: str
    info: FieldInfo
    model: type[BaseSettings]
    domain: str | None

    @property
    def key(self) -> str:
        """Its key in the config file."""
        return file_key(self.variable)


@dataclass(frozen=True)
class Row:
    """A setting as this process has it."""

    declared: Declared
    source: Source
    value: str


def declared(registry: Registry) -> list[Declared]:
    """The server's settings, then each domain's, in the models' order."""
    models: list[tuple[type[BaseSettings], str | None]] = [(Settings, None)]
    models += [(d.settings, d.name) for d in registry.domains.values() if d.settings is not None]
    return [
        Declared(variable, name, model.model_fields[name], model, domain)
        for model, domain in models
        for variable, key in variables(model).items()
        for name in [_field_of(model, key)]
    ]


def _field_of(model: type[BaseSettings], key: str) -> str:
    return next(name for name, info in model.model_fields.items() if name == key or info.validation_alias == key)


def rows(settings: Settings, registry: Registry, flags: Mapping[str, Any]) -> list[Row]:
    """Every setting's value and where it came from; secrets masked."""
    table = file_values(settings.config)
    environment = {name.upper() for name in os.environ}
    instances: dict[type[BaseSettings], BaseSettings | str] = {Settings: settings}
    found = []
    for item in declared(registry):
        if item.model not in instances:
            try:
                instances[item.model] = item.model(**from_file(item.model, table))
            except ValidationError as exc:
                instances[item.model] = f"invalid: {exc.errors()[0]['msg']}"
        instance = instances[item.model]
        value = instance if isinstance(instance, str) else shown(item.field, getattr(instance, item.field))
        if item.domain is None and flags.get(item.field) is not None:
            source: Source = "flag"
        elif item.variable in environment:
            source = "environment"
        elif item.key in table:
            source = "facade.toml"
        else:
            source = "default"
        found.append(Row(item, source, value))
    return found


def shown(name: str, value: Any) -> str:
    """A value as `facade settings` prints it: tokens and secrets masked, URLs without credentials."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str) and SECRET_WORDS.intersection(name.split("_")):
        return "****"
    return redact_url(str(value))


def render_text(found: list[Row]) -> str:
    width = max(len(r.declared.variable) for r in found)
    return "\n".join(f"{r.declared.variable:<{width}}  {r.source:<11}  {r.value}" for r in found) + "\n"


def render_markdown(registry: Registry) -> str:
    """The README's table: every setting, its default and what it does."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for item in declared(registry):
        meaning = (item.info.description or "").replace("|", "\\|")
        lines.append(f"| `{item.variable}` | {_default(item.info)} | {meaning} |")
    return "\n".join(lines) + "\n"


def _default(info: FieldInfo) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if SHOWN_DEFAULT in extra:
        return f"`{extra[SHOWN_DEFAULT]}`"
    value = info.default
    if value is PydanticUndefined or value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def check_names(
    registry: Registry, table: Mapping[str, Any], environ: Iterable[str], also_known: Iterable[str], file: str = "facade.toml"
) -> None:
    """A config-file key or `FACADE_*` variable that no model declares is a ConfigError naming
    the closest valid one: a misspelt setting would otherwise be silently ignored."""
    server = {item.variable for item in declared(registry)}
    keys = {file_key(variable) for variable in server} - {"config"}
    for key in table:
        if key not in keys:
            raise ConfigError(f"unknown setting {key} in {file}{closest(key, keys)}")
    known = server | set(also_known)
    for name in environ:
        variable = name.upper()
        if variable.startswith("FACADE_") and variable not in known and not variable.startswith(AGENT_TOKEN_PREFIX):
            raise ConfigError(f"unknown setting {name}{closest(variable, known)}")


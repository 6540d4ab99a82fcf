"""A domain's own settings: `FACADE_<DOMAIN>_*` variables, declared by the domain as a
pydantic-settings model (one `description` per field: `facade settings` and the README's table
list them) and read here, the same way for every domain.

They are read per call, so that an operator (or a test) can move a root or point at another
server without a restart; a read is kept until the environment or the server's context changes
(constructing the model was ~0.2 ms, twice per files.stat: 2026-12, issue 17). Precedence is the server's: the
environment, then the config file (`facade.toml`, whose keys are the variables' names without
`FACADE_`, lowercase), then the default. The server hands the file's values and its data folder
over once at start (`use_server_context`); a domain's folders default under that data folder.

A value that does not parse makes the domain Unavailable with the variable named: where the
fault lies is the operator's business, and the model only learns that the domain cannot work
until it is fixed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings

from facade.errors import RegistryError, Unavailable

S = TypeVar("S", bound=BaseSettings)
PREFIX = "FACADE_"
DEFAULT_DATA_DIR = Path(".facade")
# What the README and `facade settings --markdown` show for a folder under the data folder.
SHOWN_DEFAULT = "shown_default"


@dataclass(frozen=True)
class ServerContext:
    """What the server tells every domain's settings: where it writes, and what the config file says.

    Attributes:
        data_dir: FACADE_DATA_DIR; a domain's folders default under it (`data_folder`).
        file_values: the config file's table, keys as in the file (`files_root`).
    """

    data_dir: Path = DEFAULT_DATA_DIR
    file_values: Mapping[str, Any] = field(default_factory=dict)


_context = ServerContext()


def use_server_context(data_dir: Path, file_values: Mapping[str, Any]) -> None:
    """Called by the server once its settings are read; every later read follows it."""
    global _context
    _context = ServerContext(data_dir, dict(file_values))


def server_context() -> ServerContext:
    return _context


def data_folder(name: str, description: str) -> Any:
    """A field default: the folder `name` under the server's data folder, as it is when the
    settings are read (so that FACADE_DATA_DIR moves it with everything else)."""
    return Field(
        default_factory=lambda: _context.data_dir / name,
        description=description,
        json_schema_extra={SHOWN_DEFAULT: f"<data dir>/{name}"},
    )


def variables(model: type[BaseSettings]) -> dict[str, str]:
    """The model's variables: `FACADE_…` name → the key its value is passed under (the field's
    alias when it has one, as mail's FACADE_MAIL_FROM, else its name)."""
    prefix = str(model.model_config.get("env_prefix") or "")
    found: dict[str, str] = {}
    for name, info in model.model_fields.items():
        alias = info.validation_alias if isinstance(info.validation_alias, str) else None
        found[(alias or prefix + name).upper()] = alias or name
    return found


def file_key(variable: str) -> str:
    """The config file's key for a variable: FACADE_FILES_ROOT is `files_root`."""
    return variable.removeprefix(PREFIX).lower()


def from_file(model: type[BaseSettings], file_values: Mapping[str, Any]) -> dict[str, Any]:
    """The file's values for `model`'s variables that the environment does not set: passed to the
    model, they rank below the environment and above the defaults."""
    environment = {name.upper() for name in os.environ}
    return {
        key: file_values[file_key(variable)]
        for variable, key in variables(model).items()
        if file_key(variable) in file_values and variable not in environment
    }


def settings_reader(model: type[S]) -> Callable[[], S]:
    """A function that returns `model` as the environment and the config file say now. The
    model's `env_prefix` (`FACADE_<DOMAIN>_`) names the domain in messages, so it is checked here,
    at import."""
    prefix = str(model.model_config.get("env_prefix") or "")
    domain = prefix.removeprefix(PREFIX).removesuffix("_").lower()
    if not (prefix.startswith(PREFIX) and prefix.endswith("_") and domain):
        raise RegistryError(
            f"{model.__name__}: a domain's settings are FACADE_<DOMAIN>_* variables; give it "
            f"model_config = SettingsConfigDict(env_prefix='FACADE_<DOMAIN>_'), not env_prefix={prefix!r}"
        )

    kept: list[tuple[ServerContext, dict[bytes, bytes], S] | None] = [None]

    def read() -> S:
        # pydantic-settings reads the whole environment (names case-insensitively), so the whole of
        # it is the key: os.environ's raw dict compares in well under a microsecond, its decoded
        # view in ~18 µs. A copy is handed out, so that no caller changes another's.
        environment: dict[bytes, bytes] = os.environ._data  # type: ignore[attr-defined]
        last = kept[0]  # read once: another thread may replace it meanwhile
        if last is not None and last[0] is _context and last[1] == environment:
            return last[2].model_copy()
        context, before = _context, dict(environment)  # taken before the read: a change meanwhile reads again
        try:
            value = model(**from_file(model, _context.file_values))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0]).upper() if first["loc"] else "*"
            # A field read through an alias (mail's FACADE_MAIL_FROM) is reported by its full name.
            where = field if field.startswith(prefix) else prefix + field
            raise Unavailable(
                f"the {domain} domain is misconfigured ({where}: {first['msg']}); an operator must fix it"
            ) from None
        kept[0] = (context, before, value)
        return value.model_copy()

    read.__doc__ = f"The {domain} domain's settings ({prefix}*) as the environment says now."
    return read

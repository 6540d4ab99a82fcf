"""The host's settings (`facade chat`, `facade run`): `FACADE_HOST_*` variables, plus the facade's
address (`FACADE_URL`), the agents folder (`FACADE_AGENTS_DIR`, which the server reads too) and
the Anthropic SDK's own variable names, read by pydantic-settings as the server's are.

Every reader takes an optional `env` mapping instead of `os.environ` (tests inject one); a value
that does not fit is a `HostSettingsError` of one line that names the variable, the value and
what to write instead — the rule the server's `load_settings` follows for its own (the host
imports nothing of the server, so it is written here for the host's variables). A command's flag
wins over its variable; that is the caller's to apply (facade/host/commands.py).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from facade.host.compaction import COMPACT_AT

PREFIX = "FACADE_HOST_"
PROVIDERS = ("openai", "anthropic", "fenced")
DEFAULT_URL = "http://127.0.0.1:8765/mcp"
# Ollama's OpenAI-compatible root: the most common local server.
DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1"
DEFAULT_SESSIONS = Path(".facade") / "sessions"
DEFAULT_SKILLS = Path(".facade") / "skills"
# What a bad value should have been, said in the error beside the variable.
HINT = "hint"

_ENVIRON: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("facade_host_environ", default=None)


class HostSettingsError(ValueError):
    """A host variable holds a value the host cannot use; the message names it and what to write."""


class _MappingEnv(EnvSettingsSource):
    """The environment source, reading the mapping `read_settings` was given instead of os.environ."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        given = _ENVIRON.get()
        if given is None:
            return super()._load_env_vars()
        return parse_env_vars(dict(given), self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)


class _FromEnvironment(BaseSettings):
    """Read from the environment alone (no file, no dotenv): the host has no config file."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, _MappingEnv(settings_cls)


def _number(value: Any) -> Any:
    """`8_192` and `32,768` as people write them."""
    return value.strip().replace("_", "").replace(",", "") if isinstance(value, str) else value


class HostSettings(_FromEnvironment):
    """Every variable the host reads. An empty variable counts as unset.

    Attributes are the variables' names after `FACADE_HOST_`, lowercase, except where an alias
    names another variable; each field's description is its line in the README's table.
    """

    model_config = SettingsConfigDict(env_prefix=PREFIX, env_ignore_empty=True, extra="ignore", populate_by_name=True)

    url: str = Field(
        default=DEFAULT_URL, validation_alias="FACADE_URL", description="The facade the host talks to (its `/mcp` endpoint or its root; also `--url`)."
    )
    agents_dir: Path = Field(
        default=Path("agents"), validation_alias="FACADE_AGENTS_DIR", description="Where the host reads agent.toml, SYSTEM.md and MEMORY.md (also `--agents-dir`)."
    )
    provider: str = Field(
        default="openai", description="`openai`, `anthropic` or `fenced` (the ```tool protocol over an OpenAI-compatible endpoint; also `--provider`).",
        json_schema_extra={HINT: "choose one of " + ", ".join(PROVIDERS)},
    )
    model: str | None = Field(default=None, description="The model; agent.toml's `model` when unset (also `--model`).")
    base_url: str | None = Field(
        default=None, description=f"The OpenAI-compatible API root, up to `/v1`; Ollama's `{DEFAULT_BASE_URL}` when unset (also `--base-url`)."
    )
    api_key: str | None = Field(default=None, description="The OpenAI-compatible endpoint's API key; local servers need none (also `--api-key`).")
    max_tokens: int | None = Field(
        default=None, gt=0, description="The cap on one reply's tokens; the server's default (Anthropic: 4096) when unset.",
        json_schema_extra={HINT: "write a positive whole number of tokens (e.g. 4096), or unset it"},
    )
    sessions: Path = Field(default=DEFAULT_SESSIONS, description="Where sessions and their trajectories are kept.")
    context_window: int | None = Field(
        default=None, gt=0, description="The model's window in tokens; agent.toml's `context_window` when unset, and no compaction while neither says.",
        json_schema_extra={HINT: "write a whole number of tokens (e.g. 32768), the window the model server runs"},
    )
    compact_at: float = Field(
        default=COMPACT_AT, gt=0, le=1, description="The share of the window a request may fill before the host compacts.",
        json_schema_extra={HINT: "write a share of the window between 0 and 1 (e.g. 0.8)"},
    )
    skills: Path | None = Field(default=None, description="The skills folder, one folder with a SKILL.md per skill; `.facade/skills` in the working folder when unset.")
    # 3 retries ride out a rate limit or a local server still loading its model (HTTP 503) without
    # holding a turn for minutes: each wait is capped at 60 s (facade/host/providers/http.py).
    retries: int = Field(
        default=3, ge=0, le=20, description="How many times a model request is sent again after HTTP 429, 500, 502, 503, 529 or a dropped connection (0: never).",
        json_schema_extra={HINT: "write a whole number of retries from 0 to 20 (e.g. 3)"},
    )
    keep_cache: bool = Field(
        default=False,
        description="Ask a llama.cpp-family server to keep the prompt's KV cache (`cache_prompt`); off because OpenAI's own API refuses unknown fields.",
        json_schema_extra={HINT: "write true or false"},
    )
    slot: int | None = Field(
        default=None, ge=0, description="With keep_cache: the llama.cpp server slot (`id_slot`) this host's requests use, so that its cache is this session's.",
        json_schema_extra={HINT: "write the slot's number (0 to the server's --parallel minus 1), or unset it"},
    )
    anthropic_api_key: str | None = Field(default=None, validation_alias="ANTHROPIC_API_KEY", description="Anthropic's API key (the SDK's own variable; also `--api-key`).")
    anthropic_base_url: str = Field(default="https://api.anthropic.com", validation_alias="ANTHROPIC_BASE_URL", description="Anthropic's API root, without `/v1`.")
    anthropic_model: str | None = Field(default=None, validation_alias="ANTHROPIC_MODEL", description="Anthropic's model when FACADE_HOST_MODEL is unset.")

    @field_validator("max_tokens", "context_window", "compact_at", "retries", "slot", mode="before")
    @classmethod
    def _as_written(cls, value: Any) -> Any:
        return _number(value)

    @field_validator("provider")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in PROVIDERS:
            raise ValueError(f"choose one of {', '.join(PROVIDERS)}")
        return value


class Locale(_FromEnvironment):
    """The POSIX locale variables, read for the user's language (facade.host.context)."""

    model_config = SettingsConfigDict(env_ignore_empty=True, extra="ignore", case_sensitive=True)

    lc_all: str = Field(default="", validation_alias="LC_ALL")
    lc_messages: str = Field(default="", validation_alias="LC_MESSAGES")
    lang: str = Field(default="", validation_alias="LANG")

    @property
    def language(self) -> str:
        """The first of LC_ALL, LC_MESSAGES, LANG that names a locale, as a BCP 47 tag
        (`de_AT.UTF-8` → `de-AT`); `en` when they say nothing (`C`, `POSIX`, unset)."""
        for value in (self.lc_all, self.lc_messages, self.lang):
            value = value.split(".")[0].split("@")[0]
            if value and value not in ("C", "POSIX"):
                return value.replace("_", "-")
        return "en"


Model = TypeVar("Model", bound=_FromEnvironment)


def read_settings(model: type[Model], env: Mapping[str, str] | None = None) -> Model:
    """`model` read from `env` (os.environ when None); a HostSettingsError says which variable is
    wrong and what to write."""
    with _reading(env):
        try:
            return model()
        except ValidationError as exc:
            raise HostSettingsError(explain(model, exc, os.environ if env is None else env)) from None


def host_settings(env: Mapping[str, str] | None = None) -> HostSettings:
    """The host's settings; a misspelt `FACADE_HOST_*` name is an error naming the closest one,
    as the server's start treats its own, rather than a setting silently not taken."""
    known = variables(HostSettings)
    for name in os.environ if env is None else env:
        if name.upper().startswith(PREFIX) and name.upper() not in known:
            match = difflib.get_close_matches(name.upper(), list(known), n=1, cutoff=0.6)
            hint = f"; did you mean {match[0]}?" if match else "; the README's Settings section lists the host's"
            raise HostSettingsError(f"unknown setting {name}{hint}")
    return read_settings(HostSettings, env)


@contextlib.contextmanager
def _reading(env: Mapping[str, str] | None) -> Iterator[None]:
    token = _ENVIRON.set(env)
    try:
        yield
    finally:
        _ENVIRON.reset(token)


def variable(name: str, info: FieldInfo) -> str:
    """The environment variable a field is read from."""
    return info.validation_alias if isinstance(info.validation_alias, str) else PREFIX + name.upper()


def variables(model: type[BaseSettings] = HostSettings) -> dict[str, str]:
    """Each variable the model reads → its description: the names the server's start also knows."""
    return {variable(name, info): info.description or "" for name, info in model.model_fields.items()}


def explain(model: type[BaseSettings], exc: ValidationError, env: Mapping[str, str]) -> str:
    """The first error as the person who must change it reads it: `VARIABLE='value': what to write`."""
    first = exc.errors()[0]
    loc = str(first["loc"][0]) if first["loc"] else ""
    name = next((n for n, i in model.model_fields.items() if n == loc or i.validation_alias == loc), loc)
    info = model.model_fields.get(name)
    if info is None:
        return str(first["msg"])
    var = variable(name, info)
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    hint = str(extra.get(HINT) or str(first["msg"]).removeprefix("Value error, "))
    raw = next((v for k, v in env.items() if k.upper() == var), None)
    return f"{var}={raw!r}: {hint}" if raw is not None else f"{var}: {hint}"


def render_markdown(model: type[BaseSettings] = HostSettings) -> str:
    """The README's table of the host's settings."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in model.model_fields.items():
        default = info.default
        shown = "—" if default is None or default == "" else f"`{str(default).lower() if isinstance(default, bool) else default}`"
        lines.append(f"| `{variable(name, info)}` | {shown} | {(info.description or '').replace('|', chr(92) + '|')} |")
    return "\n".join(lines) + "\n"

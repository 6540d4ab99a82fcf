"""Agents: one folder each under `agents/`, defined by its `agent.toml`."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from facade.errors import AgentError
from facade.catalogue.registry import Registry

AppSetting = Literal["default", "core", "full"]
Disclosure = Literal["all", "search"]
AGENT_FILE = "agent.toml"
DEV_TOKEN_PREFIX = "facade-dev-"
# The facade's own app: in "search" disclosure its tools (search, describe, elevate) stay loaded.
SEARCH_APP = "skills"


class AgentFile(BaseModel):
    """The schema of `agents/<name>/agent.toml`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    description: str = ""
    model: str = ""
    context_window: int | None = Field(default=None, gt=0)
    tokenizer: str | None = None
    token_env: str | None = None
    oauth_clients: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]] = Field(default_factory=list)
    apps: dict[str, AppSetting] = Field(default_factory=dict)
    disclosure: Disclosure = "all"
    pinned: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=3)]] = Field(default_factory=list)


@dataclass(frozen=True)
class Agent:
    """A loaded agent.

    Attributes:
        token: the bearer token it authenticates with; the development token `facade-dev-<name>`
            when its `token_env` is unset (accepted only on loopback, see identity.py).
        dev_token: whether `token` is that development token.
        oauth_clients: the OAuth client ids whose access tokens act as this agent (the claim
            FACADE_OAUTH_AGENT_CLAIM names, client_id by default; facade/access/oauth.py).
        apps: domain → "default" | "core" | "full"; a domain not listed is invisible.
        workspace: the agent's folder (SYSTEM.md, TOOLS.md, memory files).
        disclosure: "all" — the model is given every tool of the view; "search" — only the
            always-loaded set (the pinned tools and the skills app), the rest found through
            skills.tool_search (facade/catalogue/disclosure.py).
        pinned: the tools always loaded in "search" disclosure, besides the skills app.
    """

    name: str
    description: str
    model: str
    context_window: int | None
    tokenizer: str | None
    token_env: str | None
    token: str
    dev_token: bool
    apps: dict[str, AppSetting]
    workspace: Path
    oauth_clients: tuple[str, ...] = ()
    disclosure: Disclosure = "all"
    pinned: tuple[str, ...] = ()


def dev_token_for(name: str) -> str:
    return f"{DEV_TOKEN_PREFIX}{name}"


def load_agents(folder: Path, registry: Registry, environ: dict[str, str] | None = None) -> dict[str, Agent]:
    """Every `<folder>/*/agent.toml`, checked against the registry; errors name file and fix."""
    env = os.environ if environ is None else environ
    if not folder.is_dir():
        raise AgentError(
            f"agents folder {folder} does not exist; run `facade init DIR` for a starter deployment, "
            "pass --demo for the demo agents, or set FACADE_AGENTS_DIR"
        )
    agents: dict[str, Agent] = {}
    owners: dict[str, str] = {}
    clients: dict[str, str] = {}
    for path in sorted(folder.glob(f"*/{AGENT_FILE}")):
        agent = load_agent(path, registry, env)
        if agent.name in agents:
            raise AgentError(f"{path}: agent {agent.name!r} is defined twice")
        if agent.token in owners:
            raise AgentError(
                f"{path}: agent {agent.name!r} has the same token as {owners[agent.token]!r}; "
                "give each agent its own token_env"
            )
        owners[agent.token] = agent.name
        for client in agent.oauth_clients:
            if client in clients:
                raise AgentError(
                    f"{path}: OAuth client {client!r} is listed by agent {clients[client]!r} too; a client acts as "
                    "one agent, so list it in one agent.toml"
                )
            clients[client] = agent.name
        agents[agent.name] = agent
    return agents


def load_agent(path: Path, registry: Registry, env: os._Environ[str] | dict[str, str]) -> Agent:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise AgentError(f"{path}: cannot read it as TOML ({exc})") from None
    try:
        spec = AgentFile.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'file'}: {_explain(e)}" for e in exc.errors()
        )
        raise AgentError(f"{path}: {problems}") from None
    if spec.name != path.parent.name:
        raise AgentError(f"{path}: name {spec.name!r} must match its folder {path.parent.name!r}")
    unknown = sorted(set(spec.apps) - set(registry.domains))
    if unknown:
        raise AgentError(
            f"{path}: unknown domain(s) {', '.join(unknown)} in [apps]; "
            f"known domains: {', '.join(sorted(registry.domains))}"
        )
    _check_disclosure(path, spec, registry)
    token = env.get(spec.token_env, "") if spec.token_env else ""
    return Agent(
        name=spec.name,
        description=spec.description,
        model=spec.model,
        context_window=spec.context_window,
        tokenizer=spec.tokenizer,
        token_env=spec.token_env,
        token=token or dev_token_for(spec.name),
        dev_token=not token,
        apps=dict(spec.apps),
        workspace=path.parent,
        oauth_clients=tuple(spec.oauth_clients),
        disclosure=spec.disclosure,
        pinned=tuple(dict.fromkeys(spec.pinned)),
    )


def _check_disclosure(path: Path, spec: AgentFile, registry: Registry) -> None:
    """Pinned tools exist among the agent's apps, and only where they mean something."""
    if spec.pinned and spec.disclosure != "search":
        raise AgentError(f'{path}: pinned tools are kept loaded only with disclosure = "search"; set it or remove pinned')
    if spec.disclosure == "search" and SEARCH_APP not in spec.apps:
        raise AgentError(f'{path}: disclosure = "search" finds tools with skills.tool_search; add skills = "default" to [apps]')
    for name in spec.pinned:
        capability = registry.get(name)
        if capability is None:
            raise AgentError(f"{path}: pinned tool {name!r} is not in the catalogue; `facade catalogue` lists the names")
        if capability.domain not in spec.apps:
            raise AgentError(f"{path}: pinned tool {name!r} belongs to {capability.domain}, which is not in [apps]")


def _explain(error: dict) -> str:  # type: ignore[type-arg]
    if error["type"] == "literal_error" and error["loc"][:1] == ("disclosure",):
        return f"{error['input']!r} is not a disclosure; use \"all\" or \"search\""
    if error["type"] == "literal_error":
        return f"{error['input']!r} is not a mode; use \"default\", \"core\" or \"full\""
    if error["type"] == "extra_forbidden":
        return "unknown key; allowed: " + ", ".join(AgentFile.model_fields)
    return str(error["msg"])

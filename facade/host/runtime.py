"""Wiring one agent's session: the facade connection, the persisted session, the trajectory and
the loop, opened and closed together (`session.started` … `session.ended`).

The host reads the agent's folder (`agents/<name>/agent.toml`, `SYSTEM.md`, `MEMORY.md`) when it
has one locally, for the token variable, the model, its window, the instructions and the memory
block; over the wire it needs only the facade's URL and a token.
"""

from __future__ import annotations

import contextlib
import os
import tomllib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from facade.host.loop import HOST_INSTRUCTIONS, AgentLoop, LoopConfig
from facade.host.permissions import PermissionPolicy, Prompter
from facade.host.providers.base import Provider
from facade.host.session import Session, check_segment
from facade.host.settings import DEFAULT_SESSIONS, DEFAULT_URL, host_settings
from facade.host.skills import with_skills
from facade.host.tools import endpoints, open_tools
from facade.host.trajectory import Trajectory
from facade.tokencount import bundled_name

# Development tokens are accepted only by a facade listening on loopback (DESIGN, "Identity").
DEV_TOKEN_PREFIX = "facade-dev-"


@dataclass(frozen=True)
class AgentFolder:
    """What the host reads from `agents/<name>/`, when the folder is there.

    Attributes:
        name: the agent.
        model: `model` from agent.toml ("" when unset).
        token_env: the variable holding its token.
        tokenizer: `tokenizer` from agent.toml (None when unset).
        system_md: SYSTEM.md, the agent's own instructions (None when absent).
        context_window: `context_window` from agent.toml (None when unset).
        memory_md: MEMORY.md, the agent's memory block (None when absent) — the same workspace
            file the facade's context budget counts as part of this agent's system prompt.
    """

    name: str
    model: str = ""
    token_env: str | None = None
    tokenizer: str | None = None
    system_md: str | None = None
    context_window: int | None = None
    memory_md: str | None = None


class AgentFolderError(ValueError):
    """The agent's folder holds something the host cannot use; the message says what to fix."""


def read_agent(name: str, agents_dir: Path | None = None, env: Mapping[str, str] | None = None) -> AgentFolder:
    try:
        check_segment("agent name", name)
    except ValueError as exc:
        raise AgentFolderError(str(exc)) from None
    folder = (agents_dir or host_settings(env).agents_dir) / name
    data: dict[str, Any] = {}
    toml = folder / "agent.toml"
    if toml.is_file():
        try:
            data = tomllib.loads(toml.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise AgentFolderError(f"{toml} is not valid TOML ({exc}): fix the file, or point FACADE_AGENTS_DIR at another agents folder") from None
    system, memory = folder / "SYSTEM.md", folder / "MEMORY.md"
    window = data.get("context_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window <= 0):
        raise AgentFolderError(f"{toml}: context_window must be the model's window as a positive whole number of tokens (e.g. 32768), not {window!r}")
    return AgentFolder(
        name,
        str(data.get("model") or ""),
        data.get("token_env"),
        data.get("tokenizer"),
        system.read_text(encoding="utf-8") if system.is_file() else None,
        int(window) if window else None,
        memory.read_text(encoding="utf-8") if memory.is_file() else None,
    )


def agent_token(folder: AgentFolder, env: Mapping[str, str] | None = None) -> str:
    """The agent's variable (agent.toml `token_env`, else FACADE_TOKEN_<NAME>), else its
    development token."""
    env = os.environ if env is None else env
    for variable in (folder.token_env, f"FACADE_TOKEN_{folder.name.upper().replace('-', '_')}"):
        if variable and env.get(variable):
            return env[variable]
    return DEV_TOKEN_PREFIX + folder.name


@dataclass
class HostOptions:
    """How to reach the facade and keep the session.

    Attributes:
        url: the facade's MCP endpoint (or its root).
        token: the agent's bearer token; None reads it as `agent_token` says.
        mode: MCP protocol era: `auto` (2026-07-28) or `legacy` (2025-11-25 handshake).
        sessions_dir: where sessions and trajectories are kept.
        session_id: resume this session (also the conversation id); None starts a new one.
        agents_dir: the agents folder to read agent.toml and SYSTEM.md from.
        policy: which tool calls run.
        prompter: who is asked about Prompt decisions; None denies them.
        config: the loop's settings.
    """

    url: str = DEFAULT_URL
    token: str | None = None
    mode: str = "auto"
    sessions_dir: Path = DEFAULT_SESSIONS
    session_id: str | None = None
    agents_dir: Path | None = None
    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    prompter: Prompter | None = None
    config: LoopConfig = field(default_factory=LoopConfig)


@contextlib.asynccontextmanager
async def start(agent: str, provider: Provider, options: HostOptions) -> AsyncIterator[AgentLoop]:
    """An agent loop, connected and recording, for the length of the block."""
    folder = read_agent(agent, options.agents_dir)
    session = Session.open(options.sessions_dir, agent, options.session_id, provider=provider.name, model=provider.model)
    trajectory = Trajectory(session.trajectory_path, session.id)
    config = options.config
    if folder.system_md and config.static_sections == [HOST_INSTRUCTIONS]:
        config = replace(config, static_sections=[HOST_INSTRUCTIONS, folder.system_md.strip()])
    if folder.tokenizer and config.tokenizer == LoopConfig.tokenizer:
        # The agent's own tokenizer when one is bundled (named as the server's budget names it);
        # a labelled estimate when it names one that is not (Gemma), rather than another model's
        # count presented as measured.
        config = replace(config, tokenizer=bundled_name(folder.tokenizer))
    if folder.context_window and config.compaction.context_window is None:
        config = replace(config, compaction=replace(config.compaction, context_window=folder.context_window))
    if folder.memory_md and folder.memory_md.strip() and config.memory is None:
        config = replace(config, memory=folder.memory_md.strip())
    mcp_url, _ = endpoints(options.url)
    token = options.token or agent_token(folder)
    async with open_tools(
        mcp_url, agent=agent, token=token, conversation_id=session.id, mode=options.mode, prompter=options.prompter
    ) as tools:
        trajectory.emit(
            "session.started",
            {
                "agent": agent,
                "session": session.id,
                "conversation_id": session.id,
                "resumed": bool(session.messages),
                "provider": provider.name,
                "model": provider.model,
                "url": mcp_url,
                "protocol": tools.client.client.protocol_version,
                "watching_changes": tools.watching,
            },
        )
        served, config = with_skills(tools, config)  # the user's skills beside the facade's tools
        loop = AgentLoop(provider, served, session, trajectory, policy=options.policy, prompter=options.prompter, config=config)
        reason = "closed"
        try:
            yield loop
        except BaseException as exc:
            reason = f"error: {exc.__class__.__name__}: {exc}"[:300]
            raise
        finally:
            trajectory.emit(
                "session.ended",
                {"reason": reason, "turns": session.turn, "model_calls": len(session.ledger.calls), "usage": session.ledger.cumulative.to_dict()},
            )

"""`facade chat AGENT` (interactive) and `facade run AGENT PROMPT` (one shot), as plain functions
the command line wires in.

Exit codes: 0 answered; 3 stopped at the step cap (the honest stop was printed); 1 the model
endpoint or the facade failed; 2 the command was wrong (unknown provider, bad rule, no model);
130 interrupted (Ctrl-C).

The model's window is agent.toml's `context_window` unless `context_window` (or
FACADE_HOST_CONTEXT_WINDOW) says otherwise — a local server often runs a model with a smaller
window than the model has; `compact_at` (FACADE_HOST_COMPACT_AT) is the share of it a request may
fill before the loop compacts. A server that refuses a request as too long teaches the loop its
window for the rest of the session (facade.host.overflow): setting the window saves that refusal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import anyio.to_thread

from facade.retrieval import embedding
from facade.host.compaction import CompactionConfig
from facade.host.loop import AgentLoop, LoopConfig
from facade.host.permissions import PermissionPolicy, PermissionRequest, Prompter
from facade.host.providers import Provider, ProviderError, make_provider
from facade.host.runtime import AgentFolder, AgentFolderError, HostOptions, read_agent, start
from facade.host.settings import HostSettings, HostSettingsError, host_settings

InputFn = Callable[[str], str]


class UsageError(ValueError):
    """The command was wrong; the message says how to write it."""


@dataclass(frozen=True)
class HostArgs:
    """What `run` and `chat` take alike, by keyword (facade/cli/main.py passes its options of the same
    names). Where a variable is named, None reads it (facade.host.settings), then the default.

    Attributes:
        url: the facade (FACADE_URL).
        token: the agent's bearer token (its token_env, then the development token).
        provider: `openai` | `anthropic` | `fenced` (FACADE_HOST_PROVIDER), or a ready Provider.
        model: the model (FACADE_HOST_MODEL, else agent.toml's).
        base_url: the provider's base URL.
        api_key: the provider's API key.
        mode: MCP protocol era: `auto` or `legacy`.
        session: resume this session id.
        sessions_dir: where sessions are kept (FACADE_HOST_SESSIONS).
        agents_dir: the agents folder (FACADE_AGENTS_DIR).
        allow: globs of tools allowed outright.
        deny: globs of tools refused.
        ask: globs of tools the user is asked about.
        default: allow | deny | prompt for tools no rule names.
        max_steps: the step cap (the provider's default when None).
        history_budget: tokens of history sent per model call.
        context_window: the model's window (FACADE_HOST_CONTEXT_WINDOW, else agent.toml's).
        compact_at: the share of the window a request may fill (FACADE_HOST_COMPACT_AT).
    """

    url: str | None = None
    token: str | None = None
    provider: str | Provider | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    mode: str = "auto"
    session: str | None = None
    sessions_dir: Path | None = None
    agents_dir: Path | None = None
    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    ask: Sequence[str] = ()
    default: str = "allow"
    max_steps: int | None = None
    history_budget: int = 5000
    context_window: int | None = None
    compact_at: float | None = None

    def options(self, prompter: Prompter | None) -> HostOptions:
        """How the host reaches the facade and runs the loop; a UsageError says what to change."""
        try:
            policy = PermissionPolicy.of(allow=self.allow, deny=self.deny, prompt=self.ask, default=self.default)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if self.max_steps is not None and self.max_steps < 1:
            raise UsageError(f"--max-steps must be at least 1, not {self.max_steps}")
        settings = _settings()
        window = self.context_window if self.context_window is not None else settings.context_window
        share = self.compact_at if self.compact_at is not None else settings.compact_at
        try:
            compaction = CompactionConfig(context_window=window, compact_at=share)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return HostOptions(
            url=self.url or settings.url,
            token=self.token,
            mode=self.mode,
            sessions_dir=self.sessions_dir or settings.sessions,
            session_id=self.session,
            agents_dir=self.agents_dir,
            policy=policy,
            prompter=prompter,
            config=LoopConfig(max_steps=self.max_steps, history_budget=self.history_budget, compaction=compaction),
        )

    def chosen_provider(self, folder: AgentFolder) -> Provider:
        """The model endpoint, the agent's own model when none is named; a UsageError says what to change."""
        if self.provider is not None and not isinstance(self.provider, str):
            return self.provider
        settings = _settings()
        model = self.model or settings.model or folder.model or None
        try:
            return make_provider(self.provider or settings.provider, model=model, base_url=self.base_url, api_key=self.api_key, settings=settings)
        except ProviderError as exc:
            raise UsageError(str(exc)) from None


def _settings() -> HostSettings:
    try:
        return host_settings()
    except HostSettingsError as exc:
        raise UsageError(str(exc)) from None


def _failure(exc: BaseException) -> str:
    """The first real error inside anyio's exception groups, as one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{exc.__class__.__name__}: {exc}" if not isinstance(exc, ProviderError) else str(exc)


def _launch(agent: str, args: HostArgs, prompter: Prompter | None, err: TextIO, body: Callable[[AgentLoop], Awaitable[int]]) -> int:
    """Run `body` in a connected agent loop, as `run` and `chat` both do; the exit code. A wrong
    command is one line on `err` and 2, any other failure one line and 1 — never a traceback."""
    try:
        folder = read_agent(agent, args.agents_dir)  # a broken agent folder is the command's to fix
        provider, options = args.chosen_provider(folder), args.options(prompter)
    except (UsageError, AgentFolderError, HostSettingsError) as exc:
        print(f"error: {exc}", file=err)
        return 2
    if not embedding.installed():  # said once at start, rather than ranking worse in silence
        print(f"note: {embedding.ABSENT}", file=err)

    async def main() -> int:
        async with start(agent, provider, options) as loop:
            return await body(loop)

    try:
        return anyio.run(main)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the boundary: one line for the person, never a traceback
        print(f"error: {_failure(exc)}", file=err)
        return 1


def run(agent: str, prompt: str, *, show_usage: bool = False, out: TextIO | None = None, err: TextIO | None = None, **args: Any) -> int:
    """One request; prints the answer. `args` are HostArgs' fields, by keyword. Nobody is there to
    ask, so Prompt decisions are denied."""
    out, err = out or sys.stdout, err or sys.stderr

    async def once(loop: AgentLoop) -> int:
        result = await loop.run(prompt)
        print(result.answer, file=out)
        if show_usage:
            print(loop.session.ledger.describe(), file=err)
        print(f"session: {loop.session.id}", file=err)
        return 3 if result.stopped else 0

    return _launch(agent, HostArgs(**args), None, err, once)


def terminal_prompter(input_fn: InputFn, out: TextIO) -> Prompter:
    """Asks on the terminal; `a` allows that tool for the rest of the session."""
    always: set[str] = set()

    async def ask(request: PermissionRequest) -> bool:
        if request.tool in always:
            return True
        arguments = json.dumps(request.arguments, ensure_ascii=False)
        print(f"\n{request.tool} {arguments}\n  ({request.reason})", file=out)
        answer = (await anyio.to_thread.run_sync(input_fn, "allow? [y]es / [n]o / [a]lways: ")).strip().lower()
        if answer.startswith("a"):
            always.add(request.tool)
        return answer.startswith(("y", "a"))

    return ask


def chat(agent: str, *, input_fn: InputFn = input, out: TextIO | None = None, err: TextIO | None = None, **args: Any) -> int:
    """The interactive loop: one request per line; /usage, /tools, /session, /exit. `args` are
    HostArgs' fields, by keyword."""
    out, err = out or sys.stdout, err or sys.stderr

    async def repl(loop: AgentLoop) -> int:
        print(f"{agent} via {loop.provider.name}:{loop.provider.model} — session {loop.session.id}. /usage, /tools, /exit.", file=out)
        while True:
            try:
                line = (await anyio.to_thread.run_sync(input_fn, "you> ")).strip()
            except EOFError:
                return 0
            if not line:
                continue
            if line in ("/exit", "/quit"):
                return 0
            if await _command(line, loop, out):
                continue
            try:
                result = await loop.run(line)
            except ProviderError as exc:
                print(f"error: {exc}", file=err)
                continue
            print(result.answer, file=out)
            print(_usage_line(loop), file=err)

    return _launch(agent, HostArgs(**args), terminal_prompter(input_fn, out), err, repl)


async def _command(line: str, loop: AgentLoop, out: TextIO) -> bool:
    if line == "/usage":
        print(loop.session.ledger.describe(), file=out)
    elif line == "/tools":
        names = sorted(t.name for t in await loop.tools.tools())
        print(f"{len(names)} tools: " + " ".join(names), file=out)
    elif line == "/session":
        print(f"{loop.session.id} ({loop.session.path})", file=out)
    else:
        return False
    return True


def _usage_line(loop: AgentLoop) -> str:
    turn = loop.session.ledger.latest_turn
    return f"[{len(turn)} model call{'s' if len(turn) != 1 else ''}: {loop.session.ledger.latest.describe()}]"

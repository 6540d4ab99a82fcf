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
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import anyio
import anyio.to_thread

from facade.host.compaction import COMPACT_AT, CompactionConfig
from facade.host.loop import AgentLoop, LoopConfig
from facade.host.permissions import PermissionPolicy, PermissionRequest, Prompter
from facade.host.providers import Provider, ProviderError, make_provider
from facade.host.runtime import DEFAULT_SESSIONS, DEFAULT_URL, AgentFolderError, HostOptions, read_agent, start

InputFn = Callable[[str], str]


class UsageError(ValueError):
    """The command was wrong; the message says how to write it."""


def _options(
    agent: str,
    *,
    url: str | None,
    token: str | None,
    mode: str,
    session: str | None,
    sessions_dir: Path | None,
    agents_dir: Path | None,
    allow: Sequence[str],
    deny: Sequence[str],
    ask: Sequence[str],
    default: str,
    max_steps: int | None,
    history_budget: int,
    context_window: int | None,
    compact_at: float | None,
    prompter: Prompter | None,
) -> HostOptions:
    try:
        policy = PermissionPolicy.of(allow=allow, deny=deny, prompt=ask, default=default)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if max_steps is not None and max_steps < 1:
        raise UsageError(f"--max-steps must be at least 1, not {max_steps}")
    window = context_window if context_window is not None else _env_number("FACADE_HOST_CONTEXT_WINDOW", int)
    share = compact_at if compact_at is not None else _env_number("FACADE_HOST_COMPACT_AT", float)
    try:
        compaction = CompactionConfig(context_window=window, compact_at=COMPACT_AT if share is None else share)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return HostOptions(
        url=url or os.environ.get("FACADE_URL") or DEFAULT_URL,
        token=token,
        mode=mode,
        sessions_dir=sessions_dir or Path(os.environ.get("FACADE_HOST_SESSIONS") or DEFAULT_SESSIONS),
        session_id=session,
        agents_dir=agents_dir,
        policy=policy,
        prompter=prompter,
        config=LoopConfig(max_steps=max_steps, history_budget=history_budget, compaction=compaction),
    )


def _env_number(name: str, kind: type[int] | type[float]) -> int | float | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return kind(raw.replace("_", "").replace(",", ""))
    except ValueError:
        what = "a whole number of tokens (e.g. 32768)" if kind is int else "a share of the window (e.g. 0.8)"
        raise UsageError(f"{name}={raw!r}: write {what}") from None


def _provider(agent: str, provider: str | Provider | None, model: str | None, base_url: str | None, api_key: str | None, agents_dir: Path | None) -> Provider:
    if provider is not None and not isinstance(provider, str):
        return provider
    provider = provider or os.environ.get("FACADE_HOST_PROVIDER") or "openai"
    chosen = model or os.environ.get("FACADE_HOST_MODEL") or read_agent(agent, agents_dir).model or None
    try:
        return make_provider(provider, model=chosen, base_url=base_url, api_key=api_key)
    except ProviderError as exc:
        raise UsageError(str(exc)) from None


OPTION_NAMES = (
    "url", "token", "mode", "session", "sessions_dir", "agents_dir", "allow", "deny", "ask", "default",
    "max_steps", "history_budget", "context_window", "compact_at",
)


def _prepare(agent: str, given: dict[str, Any], prompter: Prompter | None, err: TextIO) -> tuple[Provider, HostOptions] | int:
    """The provider and the host options `run` and `chat` share, from their keyword arguments;
    a wrong command is one line on `err` and exit code 2."""
    try:
        read_agent(agent, given["agents_dir"])  # a broken agent folder is the command's to fix
        chosen = _provider(agent, given["provider"], given["model"], given["base_url"], given["api_key"], given["agents_dir"])
        return chosen, _options(agent, prompter=prompter, **{name: given[name] for name in OPTION_NAMES})
    except (UsageError, AgentFolderError) as exc:
        print(f"error: {exc}", file=err)
        return 2


def _failure(exc: BaseException) -> str:
    """The first real error inside anyio's exception groups, as one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{exc.__class__.__name__}: {exc}" if not isinstance(exc, ProviderError) else str(exc)


def run(
    agent: str,
    prompt: str,
    *,
    url: str | None = None,
    token: str | None = None,
    provider: str | Provider | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    mode: str = "auto",
    session: str | None = None,
    sessions_dir: Path | None = None,
    agents_dir: Path | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    default: str = "allow",
    max_steps: int | None = None,
    history_budget: int = 5000,
    context_window: int | None = None,
    compact_at: float | None = None,
    show_usage: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """One request; prints the answer. Nobody is there to ask, so Prompt decisions are denied."""
    out, err = out or sys.stdout, err or sys.stderr
    prepared = _prepare(agent, locals(), None, err)
    if isinstance(prepared, int):
        return prepared
    chosen, options = prepared

    async def once() -> int:
        async with start(agent, chosen, options) as loop:
            result = await loop.run(prompt)
            print(result.answer, file=out)
            if show_usage:
                print(loop.session.ledger.describe(), file=err)
            print(f"session: {loop.session.id}", file=err)
            return 3 if result.stopped else 0

    try:
        return anyio.run(once)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the boundary: one line for the person, never a traceback
        print(f"error: {_failure(exc)}", file=err)
        return 1


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


def chat(
    agent: str,
    *,
    url: str | None = None,
    token: str | None = None,
    provider: str | Provider | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    mode: str = "auto",
    session: str | None = None,
    sessions_dir: Path | None = None,
    agents_dir: Path | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    default: str = "allow",
    max_steps: int | None = None,
    history_budget: int = 5000,
    context_window: int | None = None,
    compact_at: float | None = None,
    input_fn: InputFn = input,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """The interactive loop: one request per line; /usage, /tools, /session, /exit."""
    out, err = out or sys.stdout, err or sys.stderr
    prepared = _prepare(agent, locals(), terminal_prompter(input_fn, out), err)
    if isinstance(prepared, int):
        return prepared
    chosen, options = prepared

    async def repl() -> int:
        async with start(agent, chosen, options) as loop:
            print(f"{agent} via {chosen.name}:{chosen.model} — session {loop.session.id}. /usage, /tools, /exit.", file=out)
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

    try:
        return anyio.run(repl)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        print(f"error: {_failure(exc)}", file=err)
        return 1


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

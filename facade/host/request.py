"""One model request per step of the agent loop, fitted to the model's window.

Before every model call the tool list is refreshed if the facade said it changed, the history
is compiled to its budget (facade.host.context) and the system prompt is built (facade.host.
prompt); the trajectory records exactly what was sent.

Two things keep the request inside the model's window, and they run in this order:
1. every call, the context manager fits the history to `history_budget` by relevance. It drops
   nothing for good: the session keeps every message, and one left out of this call comes back
   in a later one that asks about it;
2. only when the request it produced (system prompt + tools + compiled history) still passes
   `compact_at` of the window — the last messages it always keeps are long, or the budget is
   large for the window — compaction rewrites the session: the older messages become one
   summary (facade.host.compaction, written by facade.host.summarizer), persisted, and the
   context manager compiles again from the compacted history, where the summary is kept first.
So compaction, which loses detail for good, runs only when the context manager's choice no longer
fits, and the context manager never undoes a compaction. With no known window the host does not
compact — until a server refuses a request as too long: then it learns the window from the
refusal, compacts at once and sends the call again, once (facade.host.overflow).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from facade.host.compaction import CompactionConfig, compactable
from facade.host.context import CompiledContext, ContextManager, Snapshot
from facade.host.disclosure import Disclosure
from facade.host.messages import ToolSpec
from facade.host.overflow import COMPACT_AND_RETRY, NOTHING_TO_COMPACT, RETRY_REFUSED, LearnedWindow, gave_up
from facade.host.prompt import SystemPromptBuilder
from facade.host.providers.base import CONTEXT_LENGTH, ModelRequest, ModelTurn, Provider, ProviderError, SystemParts, wire_parts
from facade.host.session import Session
from facade.host.summarizer import Summarizer
from facade.host.tokenizer import TokenCounter
from facade.host.trajectory import Trajectory
from facade.host.usage import TURN, Usage


class ToolList(Protocol):
    """What a request needs of the MCP side: the tools to offer and their TOOLS.md."""

    async def tools(self) -> list[ToolSpec]: ...

    async def tools_md(self) -> str | None: ...


@dataclass(frozen=True)
class Prepared:
    """One request, ready to send.

    Attributes:
        request: what the provider is given.
        payload: the body it sends for it.
        compiled: the history as the context manager fitted it.
        prompt_tokens: the request's size: system prompt, tools array and compiled history.
    """

    request: ModelRequest
    payload: dict[str, Any]
    compiled: CompiledContext
    prompt_tokens: int


def prompt_tokens(counter: TokenCounter, wire: dict[str, Any], history_tokens: int) -> int:
    """What a request costs in the window: its system prompt and tools array as sent, and the
    history as the context manager counted it."""
    system = wire["system"]
    text = system if isinstance(system, str) else "\n\n".join(str(b.get("text", "")) for b in system)
    tools = counter.count(json.dumps(wire["tools"], ensure_ascii=False, separators=(",", ":"))) if wire["tools"] else 0
    return counter.count(text) + tools + history_tokens


class Requester:
    """Makes the loop's model calls for one provider and session, each fitted to the window.

    The keyword arguments are the loop's settings of the same names (facade.host.loop.LoopConfig).
    """

    def __init__(
        self,
        provider: Provider,
        tools: ToolList,
        session: Session,
        trajectory: Trajectory,
        *,
        static_sections: list[str],
        cwd: Path,
        memory: str | None,
        history_budget: int,
        tokenizer: str | None,
        compaction: CompactionConfig,
        disclosure: Disclosure | None = None,
    ) -> None:
        self.provider = provider
        self.disclosure = disclosure or Disclosure()
        self.tools = tools
        self.session = session
        self.trajectory = trajectory
        self.static_sections = static_sections
        self.cwd = cwd
        self.memory = memory
        self.context = ContextManager(budget_tokens=history_budget, tokenizer=tokenizer)
        self.summarizer = Summarizer(provider, session, trajectory, self.context.counter)
        self.window = LearnedWindow(compaction)
        # The live snapshot (time, language, folder) of the turn in progress: taken at its first
        # request and kept for the rest, so that the requests of a tool turn share a byte-identical
        # prefix (the time sits in the system prompt, before the history) and a local runtime
        # reuses its KV cache instead of prefilling the whole prompt again.
        self._snapshot: tuple[int, Snapshot] | None = None

    @property
    def compaction(self) -> CompactionConfig:
        """When the host compacts: the configured window, narrowed by any refusal this session."""
        return self.window.compaction

    async def call(self, turn: int, step: int, query: str) -> ModelTurn:
        """The model's reply to the session as it stands, compacting first when the request would
        not fit and once more when the server refuses it as too long."""
        specs = self.disclosure.offered(await self.tools.tools())
        prepared = await self._prepare(turn, specs, query)
        if self.compaction.due(prepared.prompt_tokens):
            prepared = await self._compact(turn, step, specs, query, prepared, "threshold")
        retried = False
        while True:
            try:
                return await self._send(turn, step, prepared)
            except ProviderError as exc:
                if exc.kind != CONTEXT_LENGTH:
                    raise
                if retried:
                    action = RETRY_REFUSED
                elif compactable(self.session.messages, self.compaction.keep_recent):
                    action = COMPACT_AND_RETRY
                else:
                    action = NOTHING_TO_COMPACT
                # Learn first: the forced compaction fits its summary request to the window just learned.
                self._overflowed(turn, step, prepared, exc, action)
                if action != COMPACT_AND_RETRY:
                    raise gave_up(exc, action) from exc
            prepared = await self._compact(turn, step, specs, query, prepared, "overflow")
            retried = True

    async def _compact(self, turn: int, step: int, specs: list[ToolSpec], query: str, before: Prepared, reason: str) -> Prepared:
        """Compact the session and prepare the request again; `before` when nothing was older."""
        config = self.compaction
        compacted = await self.summarizer.compact(turn, step, config)
        if compacted is None:
            return before
        after = await self._prepare(turn, specs, query)
        self.trajectory.emit(
            "context.compacted",
            {
                "turn": turn,
                "step": step,
                "reason": reason,
                **compacted,
                "tokens_before": before.prompt_tokens,
                "tokens_after": after.prompt_tokens,
                "threshold": config.threshold,
                "window": config.context_window,
                "source": self.context.counter.source,
            },
        )
        return after

    def _overflowed(self, turn: int, step: int, refused: Prepared, error: ProviderError, action: str) -> None:
        """Record a refusal: the window it shows, the call it was (in usage, with no tokens), and
        what the host does about it."""
        before, source = self.window.window, self.window.source
        window = self.window.learn(error, refused.prompt_tokens)
        call = self.session.record_usage(Usage(), 0, refused=True)
        self.trajectory.emit(
            "context.overflowed",
            {
                "turn": turn,
                "step": step,
                "call": call.call,
                "provider": self.provider.name,
                "model": self.provider.model,
                "error": str(error),
                "server": {"window": error.window, "prompt_tokens": error.prompt_tokens},
                "prompt": {"tokens": refused.prompt_tokens, "source": self.context.counter.source},
                "window": {"before": before, "before_source": source, "after": window, "after_source": self.window.source},
                "action": action,
            },
        )

    async def _send(self, turn: int, step: int, prepared: Prepared) -> ModelTurn:
        """Record the request exactly as sent, send it, and record its usage."""
        config = self.compaction
        self.trajectory.emit(
            "context.compiled",
            {
                "turn": turn,
                "step": step,
                "purpose": TURN,
                "provider": self.provider.name,
                "model": self.provider.model,
                **wire_parts(prepared.payload, prepared.request),
                "history": {
                    "messages": len(self.session.messages),
                    "sent": len(prepared.compiled.messages),
                    "omitted": prepared.compiled.omitted,
                    "truncated": prepared.compiled.truncated,
                    "tokens": prepared.compiled.tokens,
                    "source": prepared.compiled.token_source,
                    "tokenizer": self.context.counter.name,
                    "budget": prepared.compiled.budget_tokens,
                },
                "prompt": {
                    "tokens": prepared.prompt_tokens,
                    "source": self.context.counter.source,
                    "window": config.context_window,
                    "window_source": self.window.source,
                    "threshold": config.threshold,
                },
            },
        )
        result = await self.provider.complete(prepared.request)
        call = self.session.record_usage(result.usage, len(result.tool_calls), cut_off=result.cut_off)
        self.trajectory.emit(
            "model.completed",
            {
                "turn": turn,
                "call": call.call,
                "purpose": TURN,
                "usage": result.usage.to_dict(),
                "tokens": result.usage.request_tokens(),
                "stop_reason": result.stop_reason,
                "cut_off": result.cut_off,
                "tool_calls": [c.name for c in result.tool_calls],
                "problem": result.problem,
            },
        )
        return result

    async def _prepare(self, turn: int, specs: list[ToolSpec], query: str) -> Prepared:
        compiled = self.context.compile_context(self.session.messages, query, memory=self.memory, cwd=self.cwd)
        if self._snapshot is not None and self._snapshot[0] == turn:
            compiled = replace(compiled, snapshot=self._snapshot[1])
        else:
            self._snapshot = (turn, compiled.snapshot)
        prompt = SystemPromptBuilder(
            list(self.static_sections),
            cwd=self.cwd,
            tools_md=await self.tools.tools_md(),
            memory=compiled.memory,
            env=compiled.snapshot.as_env(),
        ).build()
        request = ModelRequest(SystemParts.of(prompt), compiled.messages, specs)
        payload = self.provider.payload(request)
        size = prompt_tokens(self.context.counter, wire_parts(payload, request), compiled.tokens)
        return Prepared(request, payload, compiled, size)

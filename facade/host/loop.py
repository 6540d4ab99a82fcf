"""The agent loop: model → tool calls? → authorize → execute → append the result → again.

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
fits, and the context manager never undoes a compaction. With no known window the loop does not
compact — until a server refuses a request as too long: then it learns the window from the
refusal, compacts at once and sends the call again, once (facade.host.overflow).

The loop is bounded: 16 model calls per user request for native tool calling, 6 for the fenced
protocol (a small model that has not found its answer in 6 steps is looping, measured or not —
make it configurable rather than larger). At the cap it stops honestly, saying what it found and
where it stopped, instead of inventing an answer. Nothing the model does raises: a denied,
unknown, malformed or repeated call comes back to it as an error tool result it can act on.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from facade.host.compaction import CompactionConfig, compactable
from facade.host.context import CompiledContext, ContextManager
from facade.host.messages import ToolCall, ToolSpec, assistant, tool_result, user
from facade.host.overflow import COMPACT_AND_RETRY, NOTHING_TO_COMPACT, RETRY_REFUSED, LearnedWindow, gave_up
from facade.host.permissions import PermissionPolicy, Prompter
from facade.host.prompt import SystemPromptBuilder
from facade.host.providers.base import CONTEXT_LENGTH, ModelRequest, ModelTurn, Provider, ProviderError, SystemParts, wire_parts
from facade.host.session import Session
from facade.host.stop import Executed, honest_stop
from facade.host.summarizer import Summarizer
from facade.host.tokenizer import TokenCounter
from facade.host.tools import ToolOutcome
from facade.host.trajectory import Trajectory
from facade.host.usage import TURN, ModelCall, Usage

NATIVE_MAX_STEPS = 16
FENCED_MAX_STEPS = 6
# Identity and parameter rules are not repeated here: TOOLS.md is the one place they are written.
HOST_INSTRUCTIONS = """You work through the tools of a facade server: use them to find facts and to act, and never invent a tool result.
When a tool fails, read its error and fix the call instead of repeating it. When you have the answer, give it plainly and briefly."""


class ToolSource(Protocol):
    """What the loop needs of the MCP side (facade.host.tools.FacadeTools)."""

    async def tools(self) -> list[ToolSpec]: ...

    def spec(self, name: str) -> ToolSpec | None: ...

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome: ...

    async def tools_md(self) -> str | None: ...


@dataclass
class LoopConfig:
    """How the loop runs.

    Attributes:
        max_steps: model calls allowed per user request; None takes the provider's default
            (16 native, 6 fenced).
        history_budget: tokens the compiled history may use (the context manager's budget).
        static_sections: the system prompt's sections before the cache boundary.
        cwd: the working folder (instruction files are found by walking up from it).
        memory: a memory block for the system prompt, if any.
        tokenizer: the bundled tokenizer the history is counted with (the agent's own when
            agent.toml names one); None counts by a labelled estimate.
        compaction: the model's window and when to compact (never, while the window is unknown).
    """

    max_steps: int | None = None
    history_budget: int = 5000
    static_sections: list[str] = field(default_factory=lambda: [HOST_INSTRUCTIONS])
    cwd: Path = field(default_factory=Path.cwd)
    memory: str | None = None
    tokenizer: str | None = "o200k_base"
    compaction: CompactionConfig = field(default_factory=CompactionConfig)


@dataclass
class TurnResult:
    """One user request, done.

    Attributes:
        answer: what the user is shown.
        steps: model calls made.
        stopped: the step cap ended it before the model answered.
        executed: every tool call, with its outcome (denied ones too).
        artifacts: files saved from the model's apps.
        calls: the model calls of this turn, with their usage.
    """

    answer: str
    steps: int
    stopped: bool
    executed: list[Executed] = field(default_factory=list)
    artifacts: list[Path] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)


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


class AgentLoop:
    """Runs user requests against one provider, one facade connection and one session."""

    def __init__(
        self,
        provider: Provider,
        tools: ToolSource,
        session: Session,
        trajectory: Trajectory,
        *,
        policy: PermissionPolicy | None = None,
        prompter: Prompter | None = None,
        config: LoopConfig | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.session = session
        self.trajectory = trajectory
        self.policy = policy or PermissionPolicy()
        self.prompter = prompter
        self.config = config or LoopConfig()
        self.context = ContextManager(budget_tokens=self.config.history_budget, tokenizer=self.config.tokenizer)
        self.summarizer = Summarizer(provider, session, trajectory, self.context.counter)
        self.window = LearnedWindow(self.config.compaction)

    @property
    def max_steps(self) -> int:
        return self.config.max_steps or (NATIVE_MAX_STEPS if self.provider.native_tools else FENCED_MAX_STEPS)

    async def run(self, text: str) -> TurnResult:
        turn = self.session.start_turn(text)
        executed: list[Executed] = []
        artifacts: list[Path] = []
        last: ModelTurn | None = None
        for step in range(1, self.max_steps + 1):
            last = await self._model_call(turn, step, text)
            saved = [self.session.save_artifact(a.content, a.title) for a in last.artifacts]
            artifacts += saved
            notes = list(last.notes) + [f"Your app was saved to {p}." for p in saved]
            if last.problem:
                self.session.add(assistant(last.text))
                self.session.add(user("\n".join([last.problem, *notes])))
                continue
            if not last.tool_calls:
                self.session.add(assistant(last.text))
                answer = "\n".join([last.text.strip(), *(f"App saved to {p}" for p in saved)]).strip()
                answer = answer or "(no answer: the model returned an empty reply)"
                return self._result(turn, answer, step, False, executed, artifacts)
            self.session.add(assistant(last.text, last.tool_calls))
            for index, call in enumerate(last.tool_calls):
                outcome = await self._execute(call, step, executed)
                text_out = outcome.text if index or not notes else outcome.text + "\n\n" + "\n".join(notes)
                self.session.add(tool_result(call, text_out, is_error=outcome.is_error))
        answer = honest_stop(self.max_steps, executed, last)
        self.session.add(assistant(answer))
        return self._result(turn, answer, self.max_steps, True, executed, artifacts)

    def _result(self, turn: int, answer: str, steps: int, stopped: bool, executed: list[Executed], artifacts: list[Path]) -> TurnResult:
        calls = [c for c in self.session.ledger.calls if c.turn == turn]
        return TurnResult(answer, steps, stopped, executed, artifacts, calls)

    @property
    def compaction(self) -> CompactionConfig:
        """When the loop compacts: the configured window, narrowed by any refusal this session."""
        return self.window.compaction

    async def _model_call(self, turn: int, step: int, query: str) -> ModelTurn:
        specs = await self.tools.tools()
        prepared = await self._prepare(specs, query)
        if self.compaction.due(prepared.prompt_tokens):
            prepared = await self._compact(turn, step, specs, query, prepared, "threshold")
        try:
            return await self._send(turn, step, prepared)
        except ProviderError as exc:
            if exc.kind != CONTEXT_LENGTH:
                raise
            refused = exc
        if not compactable(self.session.messages, self.compaction.keep_recent):
            self._overflowed(turn, step, prepared, refused, NOTHING_TO_COMPACT)
            raise gave_up(refused, NOTHING_TO_COMPACT) from refused
        # Learn first: the forced compaction fits its summary request to the window just learned.
        self._overflowed(turn, step, prepared, refused, COMPACT_AND_RETRY)
        prepared = await self._compact(turn, step, specs, query, prepared, "overflow")
        try:
            return await self._send(turn, step, prepared)
        except ProviderError as exc:
            if exc.kind != CONTEXT_LENGTH:
                raise
            self._overflowed(turn, step, prepared, exc, RETRY_REFUSED)
            raise gave_up(exc, RETRY_REFUSED) from exc

    async def _compact(self, turn: int, step: int, specs: list[ToolSpec], query: str, before: Prepared, reason: str) -> Prepared:
        """Compact the session and prepare the request again; `before` when nothing was older."""
        config = self.compaction
        compacted = await self.summarizer.compact(turn, step, config)
        if compacted is None:
            return before
        after = await self._prepare(specs, query)
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
        call = self.session.record_usage(result.usage, len(result.tool_calls))
        self.trajectory.emit(
            "model.completed",
            {
                "turn": turn,
                "call": call.call,
                "purpose": TURN,
                "usage": result.usage.to_dict(),
                "stop_reason": result.stop_reason,
                "tool_calls": [c.name for c in result.tool_calls],
                "problem": result.problem,
            },
        )
        return result

    async def _prepare(self, specs: list[ToolSpec], query: str) -> Prepared:
        compiled = self.context.compile_context(self.session.messages, query, memory=self.config.memory, cwd=self.config.cwd)
        prompt = SystemPromptBuilder(
            list(self.config.static_sections),
            cwd=self.config.cwd,
            tools_md=await self.tools.tools_md(),
            memory=compiled.memory,
            env=compiled.snapshot.as_env(),
        ).build()
        request = ModelRequest(SystemParts.of(prompt), compiled.messages, specs)
        payload = self.provider.payload(request)
        size = prompt_tokens(self.context.counter, wire_parts(payload, request), compiled.tokens)
        return Prepared(request, payload, compiled, size)

    async def _execute(self, call: ToolCall, step: int, executed: list[Executed]) -> ToolOutcome:
        outcome = await self._outcome(call, step, executed)
        self.trajectory.emit(
            "tool.completed",
            {"step": step, "tool": call.name, "arguments": call.arguments, "is_error": outcome.is_error, "result_chars": len(outcome.text)},
        )
        return outcome

    async def _outcome(self, call: ToolCall, step: int, executed: list[Executed]) -> ToolOutcome:
        if call.error:
            return ToolOutcome(call.error, True)
        spec = self.tools.spec(call.name)
        if spec is None:
            # The list may have changed since this model call was compiled (an elevation just
            # approved): look again before calling the tool unknown.
            names = [t.name for t in await self.tools.tools()]
            spec = self.tools.spec(call.name)
            if spec is None:
                return ToolOutcome(unknown_tool(call.name, names), True)
        earlier = repeated(call, executed)
        if earlier is not None:
            return ToolOutcome(
                f"You already called {call.name} with exactly these arguments (step {earlier.step}) and nothing has "
                f"changed since, so I did not run it again. Its result was:\n{earlier.text[:2000]}\n"
                "Use that result, change the arguments, or answer the user.",
                True,
            )
        verdict = await self.policy.authorize(spec, call.arguments, self.prompter)
        if not verdict.allowed:
            outcome = ToolOutcome(f"Permission denied: {verdict.reason}", True)
            executed.append(Executed(step, call.name, call.arguments, outcome.text, True, denied=True, writes=False))
            return outcome
        outcome = await self.tools.call(call.name, call.arguments)
        executed.append(Executed(step, call.name, call.arguments, outcome.text, outcome.is_error, writes=not spec.read_only))
        return outcome


def repeated(call: ToolCall, executed: list[Executed]) -> Executed | None:
    """The earlier identical call, if nothing that may change state ran after it."""
    key = json.dumps(call.arguments, sort_keys=True, default=str)
    for index in range(len(executed) - 1, -1, -1):
        earlier = executed[index]
        if earlier.name == call.name and json.dumps(earlier.arguments, sort_keys=True, default=str) == key:
            return earlier
        if earlier.writes and not earlier.is_error:
            return None
    return None


def unknown_tool(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return f"There is no tool named {name}.{hint} Call only the tools you were given ({len(names)} of them)."

"""The agent loop: model → tool calls? → authorize → execute → append the result → again.

Each step's model call — the tool list refreshed, the history compiled to its budget, the system
prompt built, the session compacted when the request does not fit the window, and sent again
once when the server refuses it as too long — is one request made by facade.host.request.

The loop is bounded: 16 model calls per user request for native tool calling, 6 for the fenced
protocol (a small model that has not found its answer in 6 steps is looping, measured or not —
make it configurable rather than larger). At the cap it stops honestly, saying what it found and
where it stopped, instead of inventing an answer. Nothing the model does raises: a denied,
unknown, malformed or repeated call comes back to it as an error tool result it can act on.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from facade.host.compaction import CompactionConfig
from facade.host.disclosure import SEARCH_TOOL, Disclosure, found, routing_query
from facade.host.messages import ToolCall, ToolSpec, assistant, tool_result, user
from facade.host.permissions import PermissionPolicy, Prompter
from facade.host.providers.base import ModelTurn, Provider
from facade.host.request import Requester, ToolList
from facade.host.session import Session
from facade.host.stop import Executed, ask_shorter, cut_off_answer, cut_off_stop, honest_stop
from facade.host.tools import ToolOutcome
from facade.host.trajectory import Trajectory
from facade.host.usage import ModelCall

NATIVE_MAX_STEPS = 16
FENCED_MAX_STEPS = 6
# Identity and parameter rules are not repeated here: TOOLS.md is the one place they are written.
HOST_INSTRUCTIONS = """You work through the tools of a facade server: use them to find facts and to act, and never invent a tool result.
When a tool fails, read its error and fix the call instead of repeating it. When you have the answer, give it plainly and briefly."""


class ToolSource(ToolList, Protocol):
    """What the loop needs of the MCP side (facade.host.tools.FacadeTools): the tool list for its
    requests, and each tool to authorize and call."""

    def spec(self, name: str) -> ToolSpec | None: ...

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome: ...


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
        defer: honour the server's deferred marks (disclosure by search): give the model only
            the tools it starts with and the ones it finds; False sends every listed tool.
        preload_tools: with deferred tools, how many the server's search ranks for each user
            request to load before the turn's first model call (prompt routing; 0 for none).
    """

    max_steps: int | None = None
    history_budget: int = 5000
    static_sections: list[str] = field(default_factory=lambda: [HOST_INSTRUCTIONS])
    cwd: Path = field(default_factory=Path.cwd)
    memory: str | None = None
    tokenizer: str | None = "o200k_base"
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    defer: bool = True
    preload_tools: int = 3


@dataclass
class TurnResult:
    """One user request, done.

    Attributes:
        answer: what the user is shown.
        steps: model calls made.
        stopped: the step cap ended it before the model answered, or a reply cut off at the
            token cap a second time.
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
        self.disclosure = Disclosure(enabled=self.config.defer, preload=self.config.preload_tools)
        self.disclosure.replay(session.messages)  # a resumed session keeps the tools it found
        self.requester = Requester(
            provider,
            tools,
            session,
            trajectory,
            static_sections=self.config.static_sections,
            cwd=self.config.cwd,
            memory=self.config.memory,
            history_budget=self.config.history_budget,
            tokenizer=self.config.tokenizer,
            compaction=self.config.compaction,
            disclosure=self.disclosure,
        )

    @property
    def max_steps(self) -> int:
        return self.config.max_steps or (NATIVE_MAX_STEPS if self.provider.native_tools else FENCED_MAX_STEPS)

    async def run(self, text: str) -> TurnResult:
        turn = self.session.start_turn(text)
        executed: list[Executed] = []
        artifacts: list[Path] = []
        last: ModelTurn | None = None
        await self._route(turn, text)
        cut = False
        for step in range(1, self.max_steps + 1):
            last = await self.requester.call(turn, step, text)
            if last.cut_off and (last.problem or last.tool_calls):
                # A call or a block cut off at the token cap: asked once for less, then stopped.
                if cut:
                    answer = cut_off_stop(last, executed)
                    self.session.add(assistant(answer))
                    return self._result(turn, answer, step, True, executed, artifacts)
                cut, last = True, replace(last, tool_calls=[], problem=ask_shorter(last), artifacts=[])
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
                answer = cut_off_answer(last, answer) if last.cut_off else answer
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
        notices, self.requester.notices = self.requester.notices, []  # said once, before the answer
        return TurnResult("\n".join([*notices, answer]), steps, stopped, executed, artifacts, calls)

    async def _route(self, turn: int, text: str) -> None:
        """Prompt routing: with deferred tools, load the ones the server's search ranks first
        for this request (callable now), before the model is first asked."""
        if not (self.disclosure.enabled and self.disclosure.preload) or self.disclosure.deferring is False:
            return
        if not self.disclosure.active(await self.tools.tools()) or self.tools.spec(SEARCH_TOOL) is None:
            return
        query = routing_query(text)
        if not query:
            return
        outcome = await self.tools.call(SEARCH_TOOL, {"query": query, "limit": self.disclosure.preload})
        names = [] if outcome.is_error else found(outcome.data, callable_only=True)
        # Routing loads tools nobody asked for, so never one that destroys: a request to read a
        # file preloaded files.delete and documents.document_delete, and Qwen2.5-Coder-0.5B called
        # one (scripts/e2e_local.py). A model that means to delete finds it through the search.
        wanted = self.disclosure.want([n for n in names if not ((spec := self.tools.spec(n)) and spec.irreversible)])
        self.trajectory.emit("tools.routed", {"turn": turn, "query": query, "found": names, "wanted": wanted, "is_error": outcome.is_error})

    async def _execute(self, call: ToolCall, step: int, executed: list[Executed]) -> ToolOutcome:
        outcome = await self._outcome(call, step, executed)
        self.trajectory.emit(
            "tool.completed",
            {"step": step, "tool": call.name, "arguments": call.arguments, "is_error": outcome.is_error, "result_chars": len(outcome.text)},
        )
        wanted = self.disclosure.observe(self.tools.spec(call.name), call.arguments, outcome.data, outcome.is_error)
        if wanted:
            self.trajectory.emit("tools.wanted", {"step": step, "by": call.name, "wanted": wanted})
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

"""The ONE scripted model every test drives the host with: a Provider that replays a script of
turns and records every request it was sent.

A step is a `ModelTurn` (see `say`, `call`, `calls`), a plain string (the raw reply text: what a
fenced-protocol model would write), or a callable that receives the request and returns either —
so a test can act between two model calls (approve a card) or answer from what it was sent.
Wrap it in `FencedProvider(ScriptedModel([...]))` to script a model without function calling.
`ScriptedServer` plays the same script behind a real adapter, over HTTP, for tests of the bytes
an adapter posts (the prompt prefix, retries).
"""

from __future__ import annotations

import inspect
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from facade.host.messages import ToolCall
from facade.host.names import to_provider
from facade.host.providers.base import ModelRequest, ModelTurn
from facade.host.usage import Usage

Reply = ModelTurn | str
Step = Reply | Callable[[ModelRequest], Reply | Awaitable[Reply]]


class ScriptExhausted(AssertionError):
    """The loop asked the model for more turns than the script holds."""


def say(text: str, usage: Usage | None = None) -> ModelTurn:
    """A turn that answers in text."""
    return ModelTurn(text=text, usage=usage or Usage(), stop_reason="stop")


def call(name: str, arguments: dict[str, Any] | None = None, *, text: str = "", usage: Usage | None = None) -> ModelTurn:
    """A turn that asks for one tool."""
    return calls((name, arguments or {}), text=text, usage=usage)


def calls(*requested: tuple[str, dict[str, Any]], text: str = "", usage: Usage | None = None) -> ModelTurn:
    """A turn that asks for several tools at once (native providers allow it)."""
    made = [ToolCall(f"call_{uuid.uuid4().hex[:8]}", name, dict(arguments)) for name, arguments in requested]
    return ModelTurn(text=text, tool_calls=made, usage=usage or Usage(), stop_reason="tool_calls")


@dataclass
class ScriptedModel:
    """Replays `script`, one step per model call.

    Attributes:
        script: the steps, consumed in order.
        model: the model id it reports.
        native_tools: whether it poses as a function-calling model (the loop's step cap follows).
        requests: every request it was sent, in order.
    """

    script: list[Step]
    model: str = "scripted"
    native_tools: bool = True
    name: str = "scripted"
    requests: list[ModelRequest] = field(default_factory=list)

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "system": request.system.text,
            "tools": [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools],
            "messages": request.messages,
        }

    async def complete(self, request: ModelRequest) -> ModelTurn:
        self.requests.append(request)
        if len(self.requests) > len(self.script):
            asked = request.messages[-1].get("content", "") if request.messages else ""
            raise ScriptExhausted(f"model call {len(self.requests)} but the script has {len(self.script)} steps; last message: {str(asked)[:200]}")
        step = self.script[len(self.requests) - 1]
        if callable(step):
            step = step(request)
            if inspect.isawaitable(step):
                step = await step
        turn = say(step) if isinstance(step, str) else step
        if turn.usage == Usage():
            # No usage scripted: a deterministic stand-in that grows with the prompt, so usage
            # plumbing is exercised; ~4 characters per token, an estimate like any other.
            prompt = len(json.dumps(self.payload(request), ensure_ascii=False)) // 4
            turn = ModelTurn(turn.text, turn.tool_calls, Usage(prompt, max(len(turn.text) // 4, 1)), turn.stop_reason, turn.problem, turn.notes, turn.artifacts, turn.raw)
        return turn

    def tool_names(self, index: int = -1) -> set[str]:
        """The tool names request `index` offered the model."""
        return {t.name for t in self.requests[index].tools}


@dataclass(frozen=True)
class Answer:
    """One HTTP answer of a `ScriptedServer`, as sent: a status, a JSON body and headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Served = ModelTurn | str | Answer


class ScriptedServer:
    """The scripted model behind a real adapter: a model server over HTTP (an httpx2 transport)
    that answers each POST with the next step — a turn, rendered in the adapter's wire format
    (`openai` chat completions or `anthropic` messages), or a raw `Answer` (an error, a
    Retry-After) — and keeps every request body byte for byte as it was posted.

    Attributes:
        script: the steps, consumed in order.
        wire: `openai` or `anthropic`.
        bodies: every posted body, as bytes.
    """

    def __init__(self, script: list[Served], wire: str = "openai") -> None:
        self.script = list(script)
        self.wire = wire
        self.bodies: list[bytes] = []

    def client(self) -> httpx2.AsyncClient:
        def handle(request: httpx2.Request) -> httpx2.Response:
            self.bodies.append(request.content)
            if len(self.bodies) > len(self.script):
                raise ScriptExhausted(f"request {len(self.bodies)} but the script has {len(self.script)} steps")
            step = self.script[len(self.bodies) - 1]
            answer = step if isinstance(step, Answer) else Answer(200, self.render(say(step) if isinstance(step, str) else step))
            return httpx2.Response(answer.status, json=answer.body, headers=answer.headers)

        return httpx2.AsyncClient(transport=httpx2.MockTransport(handle))

    def sent(self, index: int = -1) -> Any:
        return json.loads(self.bodies[index])

    def render(self, turn: ModelTurn) -> dict[str, Any]:
        usage = turn.usage if turn.usage != Usage() else Usage(100, max(len(turn.text) // 4, 1))
        if self.wire == "anthropic":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
            blocks += [{"type": "tool_use", "id": c.id, "name": to_provider(c.name), "input": c.arguments} for c in turn.tool_calls]
            return {
                "id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant", "content": blocks,
                "stop_reason": "tool_use" if turn.tool_calls else "end_turn",
                "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                          "cache_creation_input_tokens": usage.cache_write_tokens, "cache_read_input_tokens": usage.cache_read_tokens},
            }
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": to_provider(c.name), "arguments": json.dumps(c.arguments)}} for c in turn.tool_calls
            ]
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
            "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.output_tokens,
                      "prompt_tokens_details": {"cached_tokens": usage.cache_read_tokens}},
        }

"""What every provider adapter takes and returns: a `ModelRequest` in, a `ModelTurn` out.

An adapter owns one wire format. It turns the host's neutral conversation (facade/host/messages)
into that API's request body (`payload`, a pure function, so the trajectory can record exactly
what was sent), posts it, and maps the response back: text, tool calls under their facade names,
and usage with its four kinds of token kept apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from facade.host.messages import Message, ToolCall, ToolSpec
from facade.host.usage import Usage


@dataclass(frozen=True)
class SystemParts:
    """The system prompt split at its cache boundary.

    Attributes:
        static: what stays byte-identical across calls (instructions): cacheable.
        dynamic: what may change from call to call (environment, TOOLS.md, memory).
    """

    static: str
    dynamic: str = ""

    @property
    def text(self) -> str:
        """The prompt as one string, for APIs without explicit cache markers: static first, so
        that automatic prefix caching (OpenAI, vLLM, llama.cpp) still reuses it."""
        return "\n\n".join(part for part in (self.static, self.dynamic) if part)

    @classmethod
    def of(cls, prompt: Any) -> SystemParts:
        """From the prompt builder's `SystemPrompt` (anything with `.static` and `.dynamic`)."""
        if isinstance(prompt, SystemParts):
            return prompt
        if isinstance(prompt, str):
            return cls(prompt)
        return cls(str(prompt.static).strip(), str(prompt.dynamic).strip())


@dataclass(frozen=True)
class ModelRequest:
    """One model call's input.

    Attributes:
        system: the system prompt, split at the cache boundary.
        messages: the compiled conversation, oldest first (neutral format).
        tools: the tools the model may call now.
    """

    system: SystemParts
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)


@dataclass(frozen=True)
class Artifact:
    """Something the model made that is saved rather than said: today, an HTML app.

    Attributes:
        kind: `html`.
        content: the whole document.
        title: its `<title>`, when it has one (names the file).
    """

    kind: str
    content: str
    title: str | None = None


# The stop reasons that mean the reply hit its token cap: OpenAI-compatible `length`, Anthropic's
# `max_tokens`.
LENGTH_STOPS = frozenset({"length", "max_tokens"})


@dataclass(frozen=True)
class ModelTurn:
    """One model call's output.

    Attributes:
        text: what the model said (for the fenced protocol: its whole raw reply).
        tool_calls: the calls it asked for, under facade names.
        usage: what the call cost.
        stop_reason: the provider's own word for why it stopped (`tool_calls`, `end_turn`, …).
        problem: set when the reply was meant as a tool call but could not be read; it tells
            the model precisely what to fix, and the loop sends it back instead of answering.
        notes: remarks for the model to read with the first tool result (e.g. that only the
            first of several fenced blocks ran).
        artifacts: documents to save (fenced ```html blocks).
        raw: the response body as received, for debugging.
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    raw: dict[str, Any] | None = None

    @property
    def cut_off(self) -> bool:
        """The reply stopped at the token cap, not where the model meant to stop: whatever call or
        block it was writing may be incomplete."""
        return self.stop_reason in LENGTH_STOPS


# `ProviderError.kind` when the server refused the prompt as longer than its context window.
CONTEXT_LENGTH = "context_length"


class ProviderError(RuntimeError):
    """The model endpoint failed or answered with something that is not a model turn.

    The message is written for the person; the attributes are for the host, which acts on them
    rather than on the message's words.

    Attributes:
        kind: `context_length` when the server refused the prompt as too long for its window
            (facade.host.providers.refusals recognises it); None for every other failure.
        window: the context size the server said it runs, in its own tokens; None when it did
            not say (or the error is of another kind).
        prompt_tokens: the refused prompt as the server counted it; None when it did not say.
    """

    def __init__(self, message: str, *, kind: str | None = None, window: int | None = None, prompt_tokens: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.window = window
        self.prompt_tokens = prompt_tokens


@runtime_checkable
class Provider(Protocol):
    """A model endpoint.

    Attributes:
        name: `openai`, `anthropic`, `fenced`, `scripted`.
        model: the model id sent to the endpoint.
        native_tools: the API carries tool calls itself (the loop allows more steps: 16 vs 6).
    """

    name: str
    model: str
    native_tools: bool

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        """The exact request body this provider sends for `request`."""
        ...

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send `request`; the model's turn."""
        ...


def wire_parts(payload: dict[str, Any], request: ModelRequest) -> dict[str, Any]:
    """The three things `context.compiled` records, exactly as the body carries them: the tools
    array, the system prompt (Anthropic's blocks; for OpenAI-style bodies, which carry it as
    messages[0], that message's text — for the fenced protocol it holds the protocol and the tool
    listing, which `request.system` does not) and the messages."""
    messages = payload.get("messages", [])
    if "system" in payload:
        system = payload["system"]
    elif messages and isinstance(messages[0], dict) and messages[0].get("role") == "system":
        system = messages[0].get("content", "")
    else:
        system = request.system.text
    return {"tools": payload.get("tools", []), "system": system, "messages": messages}

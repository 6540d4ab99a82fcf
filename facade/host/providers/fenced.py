"""The fenced protocol, for models without function calling: tools are described in the system
prompt, the model answers with only a ```tool block, and its reply is parsed forgivingly
(facade/host/providers/blocks.py).

It wraps any text provider — an OpenAI-compatible endpoint sent no `tools`, or the scripted model
in tests — and translates both ways: tool results go back as user messages (these models' chat
templates know only user and assistant, and several refuse two user turns in a row, so
same-side messages merge), and the reply comes back as tool calls, a problem to fix, or apps —
read knowing the tools offered, so that JSON naming none of them is an answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from facade.host.messages import Message, ToolSpec
from facade.host.providers.base import ModelRequest, ModelTurn, Provider, SystemParts
from facade.host.providers.blocks import FORM, read_reply

PROTOCOL = f"""## How to call a tool
You cannot run tools yourself. To call one, answer with only a fenced block, nothing before or after it:
{FORM}
One tool call per reply, then stop: its result comes back in the next message. When you have what you need, answer the user in plain text with no tool block.
To give the user an app (a page they can open), answer with one ```html block holding a complete HTML document, from <!DOCTYPE html> to </html>: it is saved as a file and the user is told where."""


def tool_listing(tools: list[ToolSpec]) -> str:
    """The tools as the model reads them: name, description and the compact argument schema
    (compact JSON runs ~4.6 characters per token, the spaced default ~4.0)."""
    if not tools:
        return "## Tools\nNo tools are available right now: answer in plain text."
    lines = ["## Tools"]
    for spec in tools:
        schema = json.dumps(spec.input_schema, separators=(",", ":"), ensure_ascii=False)
        lines.append(f"- {spec.name}: {spec.description}\n  args: {schema}")
    return "\n".join(lines)


def fenced_messages(messages: list[Message]) -> list[Message]:
    """The conversation in user/assistant turns only."""
    out: list[Message] = []
    for message in messages:
        role, text = message["role"], message.get("content") or ""
        if role == "assistant":
            if not text and message.get("tool_calls"):  # a session begun with a native provider
                call = message["tool_calls"][0]
                text = "```tool\n" + json.dumps({"tool": call["name"], "args": call["arguments"]}, ensure_ascii=False) + "\n```"
            side = "assistant"
        elif role == "tool":
            verb = "failed" if message.get("is_error") else "returned"
            text, side = f"Tool {message.get('name', '')} {verb}:\n{text}", "user"
        else:
            side = "user"
        if not text:
            continue
        if out and out[-1]["role"] == side:
            out[-1] = {"role": side, "content": out[-1]["content"] + "\n\n" + text}
        else:
            out.append({"role": side, "content": text})
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": "(earlier messages omitted)"})
    return out


@dataclass
class FencedProvider:
    """The fenced protocol over `inner`, a provider whose tools are never sent.

    Attributes:
        inner: the text endpoint (an OpenAIProvider, or the ScriptedModel in tests).
    """

    inner: Provider
    name: str = "fenced"
    native_tools: bool = False

    @property
    def model(self) -> str:
        return self.inner.model

    def inner_request(self, request: ModelRequest) -> ModelRequest:
        # The protocol is constant (static, cacheable); the listing changes with list_changed.
        system = SystemParts(
            "\n\n".join(p for p in (request.system.static, PROTOCOL) if p),
            "\n\n".join(p for p in (tool_listing(request.tools), request.system.dynamic) if p),
        )
        return ModelRequest(system, fenced_messages(request.messages), [])

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        return self.inner.payload(self.inner_request(request))

    async def complete(self, request: ModelRequest) -> ModelTurn:
        turn = await self.inner.complete(self.inner_request(request))
        reading = read_reply(turn.text, [t.name for t in request.tools])
        return ModelTurn(
            text=reading.text,
            tool_calls=reading.calls,
            usage=turn.usage,
            stop_reason=turn.stop_reason,
            problem=reading.problem,
            notes=reading.notes,
            artifacts=reading.artifacts,
            raw=turn.raw,
        )

"""Anthropic's Messages API with tool_use. POST `{base_url}/v1/messages`.

The system prompt goes as two text blocks split at the prompt's cache boundary, with
`cache_control` on the static one: the cache prefix runs tools → system → messages, so that one
breakpoint caches the tools array and the instructions together, and the dynamic tail (time,
TOOLS.md, memory) changes without invalidating it. Usage reports `input_tokens` without the
cached tokens, which come separately as cache writes and reads — kept apart as received.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx2

from facade.host.messages import Message, ToolCall, ToolSpec, paired
from facade.host.names import from_provider, to_provider
from facade.host.providers.base import ModelRequest, ModelTurn, ProviderError, SystemParts
from facade.host.providers.http import Retry, post_json
from facade.host.usage import Usage

API_VERSION = "2023-06-01"
EPHEMERAL = {"type": "ephemeral"}


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    return {"name": to_provider(spec.name), "description": spec.description, "input_schema": spec.input_schema}


def anthropic_system(system: SystemParts) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if system.static:
        blocks.append({"type": "text", "text": system.static, "cache_control": EPHEMERAL})
    if system.dynamic:
        blocks.append({"type": "text", "text": system.dynamic})
    return blocks


def _blocks(message: Message) -> list[dict[str, Any]]:
    role = message["role"]
    text = message.get("content") or ""
    if role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": text}
        if message.get("is_error"):
            block["is_error"] = True
        return [block]
    blocks = [{"type": "text", "text": text}] if text.strip() else []  # the API refuses empty text blocks
    for call in message.get("tool_calls") or []:
        blocks.append({"type": "tool_use", "id": call["id"], "name": to_provider(call["name"]), "input": call["arguments"]})
    return blocks


def anthropic_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """User and assistant turns, alternating as the API requires: tool results and the host's
    notes (system role mid-conversation, which this API does not take) join the user side, and
    consecutive same-side messages merge into one."""
    out: list[dict[str, Any]] = []
    for message in paired(messages):
        side = "assistant" if message["role"] == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == side:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": side, "content": blocks})
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(earlier messages omitted)"}]})
    return out


def anthropic_usage(body: dict[str, Any]) -> Usage:
    usage = body.get("usage") or {}
    return Usage(
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
    )


def parse_message(body: dict[str, Any]) -> ModelTurn:
    if body.get("type") == "error" or "error" in body:
        raise ProviderError(f"anthropic: the API answered with an error: {json.dumps(body.get('error', body))[:500]}")
    if body.get("type") != "message" or not isinstance(body.get("content"), list):
        raise ProviderError(f"anthropic: the response is not a message: {json.dumps(body)[:500]}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in body["content"]:
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "tool_use":
            arguments = block.get("input")
            error = None if isinstance(arguments, dict) else f"The input for {block.get('name')} must be a JSON object."
            calls.append(ToolCall(block["id"], from_provider(str(block.get("name", ""))), arguments if isinstance(arguments, dict) else {}, error))
    return ModelTurn(text="".join(texts), tool_calls=calls, usage=anthropic_usage(body), stop_reason=body.get("stop_reason"), raw=body)


@dataclass
class AnthropicProvider:
    """The Messages API.

    Attributes:
        model: the model id, e.g. `claude-sonnet-5-5`.
        api_key: `ANTHROPIC_API_KEY`.
        base_url: the API root (`ANTHROPIC_BASE_URL`), without `/v1`.
        max_tokens: the reply's cap (the API requires one).
        temperature: sampling temperature; the API's default when None.
        timeout: seconds to wait for one reply.
        http: an HTTP client to use instead of a fresh one per call (tests inject a recorder).
        retry: how a request that failed with 429/5xx/529 or a dropped connection is sent again.
    """

    model: str
    api_key: str
    base_url: str = "https://api.anthropic.com"
    max_tokens: int = 4096
    temperature: float | None = None
    timeout: float = 600
    http: httpx2.AsyncClient | None = field(default=None, repr=False)
    name: str = "anthropic"
    native_tools: bool = True
    retry: Retry = field(default_factory=Retry)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/v1/messages"

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens}
        system = anthropic_system(request.system)
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [anthropic_tool(t) for t in request.tools]
        body["messages"] = anthropic_messages(request.messages)
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    async def complete(self, request: ModelRequest) -> ModelTurn:
        headers = {"x-api-key": self.api_key, "anthropic-version": API_VERSION}
        return parse_message(await post_json(self.name, self.url, self.payload(request), headers, self.http, self.timeout, retry=self.retry))

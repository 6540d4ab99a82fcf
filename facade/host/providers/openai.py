"""OpenAI-compatible chat completions with tool calls: OpenAI itself, Ollama (`/v1`), the
llama.cpp server, vLLM. POST `{base_url}/chat/completions`.

Local servers differ in small ways this adapter absorbs: arguments arrive as a JSON string
(OpenAI, Ollama, vLLM) or already as an object (some llama.cpp builds); ids can be missing;
cached prompt tokens are reported as `prompt_tokens_details.cached_tokens` (OpenAI, vLLM) or
only in llama.cpp's `timings.cache_n`; tokens written to the cache, where the API reports them,
as `prompt_tokens_details.cache_write_tokens`. Ollama reports no cache at all.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx2

from facade.host.messages import Message, ToolCall, ToolSpec, paired
from facade.host.names import from_provider, to_provider
from facade.host.providers.base import ModelRequest, ModelTurn, ProviderError
from facade.host.providers.http import Retry, post_json
from facade.host.usage import Usage


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": to_provider(spec.name), "description": spec.description, "parameters": spec.input_schema},
    }


def openai_messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as chat-completion messages. Many local chat templates (Gemma's,
    Mistral's) accept a system message only first and make user and assistant alternate, and
    refuse the request otherwise; so a later system message (an omission marker, a compaction
    summary) joins the leading one, and user messages that end up adjacent join each other."""
    head = [system] if system else []
    out: list[dict[str, Any]] = []
    for message in paired(messages):
        role = message["role"]
        if role == "system":
            head.append(message.get("content", ""))
        elif role == "user" and out and out[-1]["role"] == "user":
            out[-1]["content"] = f"{out[-1]['content']}\n\n{message.get('content', '')}"
        elif role == "assistant" and message.get("tool_calls"):
            out.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or None,
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": to_provider(call["name"]), "arguments": json.dumps(call["arguments"], ensure_ascii=False, separators=(",", ":"))},
                        }
                        for call in message["tool_calls"]
                    ],
                }
            )
        elif role == "tool":
            # The API has no error flag on a tool message: the model reads it in the text.
            text = message.get("content", "")
            out.append({"role": "tool", "tool_call_id": message["tool_call_id"], "content": f"ERROR: {text}" if message.get("is_error") else text})
        else:
            out.append({"role": role, "content": message.get("content", "")})
    return ([{"role": "system", "content": "\n\n".join(head)}] if head else []) + out


def parse_arguments(name: str, raw: Any) -> tuple[dict[str, Any], str | None]:
    """The arguments of one call, or an error the model can act on."""
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError) as exc:
        return {}, f"The arguments you sent for {name} are not valid JSON ({exc}): {str(raw)[:200]}. Call it again with the arguments as one JSON object."
    if not isinstance(value, dict):
        return {}, f"The arguments for {name} must be a JSON object of named fields, not {type(value).__name__}: {str(raw)[:200]}."
    return value, None


def openai_usage(body: dict[str, Any]) -> Usage:
    usage = body.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    prompt = int(usage.get("prompt_tokens") or 0)
    cached = int(details.get("cached_tokens") or 0)
    if not cached:
        cached = int((body.get("timings") or {}).get("cache_n") or 0)
    # prompt_tokens counts every prompt token; `prompt_tokens_details` breaks it down, so cache
    # reads and writes are parts of it, taken out here to keep the four kinds apart.
    cached = min(cached, prompt)
    written = min(int(details.get("cache_write_tokens") or 0), prompt - cached)
    return Usage(
        input_tokens=prompt - cached - written,
        output_tokens=int(usage.get("completion_tokens") or 0),
        cache_write_tokens=written,
        cache_read_tokens=cached,
    )


def parse_completion(body: dict[str, Any]) -> ModelTurn:
    if body.get("error"):
        raise ProviderError(f"openai: the endpoint answered with an error: {json.dumps(body['error'])[:500]}")
    choices = body.get("choices") or []
    if not choices:
        raise ProviderError(f"openai: the response has no choices: {json.dumps(body)[:500]}")
    choice = choices[0]
    message = choice.get("message") or {}
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    calls: list[ToolCall] = []
    for raw in message.get("tool_calls") or []:
        function = raw.get("function") or {}
        name = from_provider(str(function.get("name", "")))
        arguments, error = parse_arguments(name, function.get("arguments"))
        calls.append(ToolCall(raw.get("id") or f"call_{uuid.uuid4().hex[:12]}", name, arguments, error))
    return ModelTurn(text=content or "", tool_calls=calls, usage=openai_usage(body), stop_reason=choice.get("finish_reason"), raw=body)


@dataclass
class OpenAIProvider:
    """Chat completions at `base_url` (e.g. `http://127.0.0.1:11434/v1` for Ollama).

    Attributes:
        base_url: the API root, up to and including `/v1`.
        model: the model id.
        api_key: sent as a bearer token when set (local servers need none).
        max_tokens: the reply's cap; the server's default when None.
        temperature: sampling temperature; the server's default when None.
        timeout: seconds to wait for one reply (local models on CPU are slow).
        http: an HTTP client to use instead of a fresh one per call (tests inject a recorder).
        keep_cache: ask a llama.cpp-family server to keep the prompt's KV cache between requests
            (`cache_prompt`); OpenAI's own API refuses unknown fields, so it is off by default.
        slot: the llama.cpp server slot (`id_slot`) to send to, so that one session's requests
            meet their own cache; the server picks when None.
        retry: how a request that failed with 429/5xx/529 or a dropped connection is sent again.
    """

    base_url: str
    model: str
    api_key: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    timeout: float = 600
    http: httpx2.AsyncClient | None = field(default=None, repr=False)
    name: str = "openai"
    native_tools: bool = True
    keep_cache: bool = False
    slot: int | None = None
    retry: Retry = field(default_factory=Retry)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": openai_messages(request.system.text, request.messages)}
        if request.tools:
            body["tools"] = [openai_tool(t) for t in request.tools]
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.keep_cache:  # llama.cpp-family fields: the prompt's cache kept, in this session's slot
            body["cache_prompt"] = True
            body.update({"id_slot": self.slot} if self.slot is not None else {})
        return body

    async def complete(self, request: ModelRequest) -> ModelTurn:
        return parse_completion(await post_json(self.name, self.url, self.payload(request), self._headers(), self.http, self.timeout, retry=self.retry))

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

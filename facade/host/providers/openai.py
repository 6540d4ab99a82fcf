"""OpenAI-compatible chat completions with tool calls: OpenAI itself, Ollama (`/v1`), the
llama.cpp server, vLLM. POST `{base_url}/chat/completions`.

Local servers differ in small ways this adapter absorbs: arguments arrive as a JSON string
(OpenAI, Ollama, vLLM) or already as an object (some llama.cpp builds); ids can be missing;
cached prompt tokens are reported as `prompt_tokens_details.cached_tokens` (OpenAI, vLLM) or
only in llama.cpp's `timings.cache_n`; tokens written to the cache, where the API reports them,
as `prompt_tokens_details.cache_write_tokens`. Ollama reports no cache at all. And a server
without a parser for the model's own call syntax (llama-cpp-python's, a vLLM started without
`--tool-call-parser`) returns the calls as text: they are lifted here (textcalls.py).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import httpx2

from facade.host.messages import Message, ToolCall, ToolSpec, paired
from facade.host.names import from_provider, to_provider
from facade.host.providers.base import ModelRequest, ModelTurn, ProviderError
from facade.host.providers.blocks import arguments
from facade.host.providers.http import Retry, post_json
from facade.host.providers.textcalls import lift
from facade.host.usage import Usage


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": to_provider(spec.name), "description": spec.description, "parameters": spec.input_schema},
    }


# What vLLM says when it was started without a tool-call parser and is sent tool_choice "auto".
TOOL_CHOICE_REFUSED = "--enable-auto-tool-choice"
# The user turn put first when the history sent begins with the assistant (older turns left out).
EARLIER = "(earlier messages omitted)"


def openai_messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as chat-completion messages, in the order strict chat templates (Gemma's,
    Mistral's) require, or they refuse the request: one system message, first; then user first,
    user and assistant alternating, tool results right after the call that asked for them.

    So the host's notes (an omission marker, a compaction summary: system messages in the
    history) go to the user side, where they say what happened at that point — not into the
    leading system message, which stays the same from call to call (a local server reuses its
    cache only for a byte-identical prefix); same-side neighbours merge; an empty reply is
    dropped; and a history that begins with the assistant gets a user turn saying so."""
    out: list[dict[str, Any]] = []
    for message in paired(messages):
        role, text = message["role"], message.get("content") or ""
        if role == "tool":
            # The API has no error flag on a tool message: the model reads it in the text.
            out.append({"role": "tool", "tool_call_id": message["tool_call_id"], "content": f"ERROR: {text}" if message.get("is_error") else text})
            continue
        entry: dict[str, Any] = {"role": "assistant" if role == "assistant" else "user", "content": text}
        if role == "assistant" and message.get("tool_calls"):
            # "" and never null: llama-cpp-python's server answers a null content with HTTP 500.
            entry["tool_calls"] = [openai_call(call) for call in message["tool_calls"]]
        elif not text.strip():
            continue
        previous = out[-1] if out else None
        if previous is not None and previous["role"] == entry["role"] and "tool_calls" not in previous:
            previous["content"] = "\n\n".join(part for part in (previous["content"], text) if part)
            if "tool_calls" in entry:
                previous["tool_calls"] = entry["tool_calls"]
        else:
            out.append(entry)
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": EARLIER})
    return ([{"role": "system", "content": system}] if system else []) + out


def openai_call(call: dict[str, Any]) -> dict[str, Any]:
    arguments = json.dumps(call["arguments"], ensure_ascii=False, separators=(",", ":"))
    return {"id": call["id"], "type": "function", "function": {"name": to_provider(call["name"]), "arguments": arguments}}


def parse_arguments(name: str, raw: Any) -> tuple[dict[str, Any], str | None]:
    """The arguments of one call, read by the fenced path's rule (blocks.arguments), or an error
    the model can act on."""
    value, error = arguments(raw, f'The "arguments" of your {name} call')
    if error is None:
        return value, None
    return {}, f"{error} They were: {str(raw)[:200]}. Call it again with the arguments as one JSON object."


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


def parse_completion(body: dict[str, Any], tools: Collection[str] = ()) -> ModelTurn:
    """The model's turn in a chat-completion body; `tools` are the names offered, for reading
    calls the model wrote as text (facade/host/providers/textcalls.py) when the server did not."""
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
    text, problem = content or "", None
    if not calls and text:
        lifted = lift(text, tools)
        calls, text, problem = lifted.calls, lifted.text, lifted.problem
    return ModelTurn(text=text, tool_calls=calls, usage=openai_usage(body), stop_reason=choice.get("finish_reason"), problem=problem, raw=body)


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
    # Cleared when the server refuses tool_choice (vLLM without a tool-call parser); see complete.
    tool_choice: bool = field(default=True, repr=False)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": openai_messages(request.system.text, request.messages)}
        if request.tools:
            body["tools"] = [openai_tool(t) for t in request.tools]
            # Said, not left to the server's default: llama-cpp-python's chatml-function-calling
            # format renders the prompt without the tools when no tool_choice is given (its
            # default, the GGUF's own template, renders the same prompt either way).
            if self.tool_choice:
                body["tool_choice"] = "auto"
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.keep_cache:  # llama.cpp-family fields: the prompt's cache kept, in this session's slot
            body["cache_prompt"] = True
            body.update({"id_slot": self.slot} if self.slot is not None else {})
        return body

    async def complete(self, request: ModelRequest) -> ModelTurn:
        try:
            body = await self._post(request)
        except ProviderError as exc:
            if not (request.tools and self.tool_choice and TOOL_CHOICE_REFUSED in str(exc)):
                raise
            # A vLLM started without --enable-auto-tool-choice refuses any tool_choice "auto"; sent
            # without one it still shows the tools to the model, and the calls come back as text,
            # which parse_completion reads. Asked once per provider, not on every call.
            self.tool_choice = False
            body = await self._post(request)
        return parse_completion(body, [t.name for t in request.tools])

    async def _post(self, request: ModelRequest) -> dict[str, Any]:
        return await post_json(self.name, self.url, self.payload(request), self._headers(), self.http, self.timeout, retry=self.retry)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

"""The one HTTP exchange every adapter makes: POST a JSON body, read a JSON answer, and turn
every way that can fail into a ProviderError that tells the person what to change."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from facade.host.providers.base import CONTEXT_LENGTH, ProviderError
from facade.host.providers.refusals import overflow


async def post_json(
    provider: str, url: str, body: dict[str, Any], headers: dict[str, str], http: httpx2.AsyncClient | None, timeout: float
) -> dict[str, Any]:
    """POST a JSON body; the JSON answer, or a ProviderError that says what to change."""
    content = json.dumps(body, ensure_ascii=False).encode()
    all_headers = {"Content-Type": "application/json", **headers}
    try:
        if http is not None:
            response = await http.post(url, content=content, headers=all_headers, timeout=timeout)
        else:
            async with httpx2.AsyncClient() as client:
                response = await client.post(url, content=content, headers=all_headers, timeout=timeout)
    except httpx2.HTTPError as exc:
        raise ProviderError(f"{provider}: cannot reach {url} ({exc.__class__.__name__}: {exc}); is the model server running?") from exc
    if response.status_code >= 400:
        raise http_failure(provider, response.status_code, response.text, url)
    try:
        data = response.json()
    except ValueError as exc:
        raise ProviderError(f"{provider}: {url} answered with something that is not JSON: {response.text[:300]}") from exc
    if not isinstance(data, dict):
        raise ProviderError(f"{provider}: {url} answered with JSON that is not an object: {response.text[:300]}")
    return data


CONTEXT_HINT = (
    "the request is longer than the model's context window: set the agent's context_window (or "
    "FACADE_HOST_CONTEXT_WINDOW) to the window the server really runs, so that the host compacts "
    "the conversation before it gets there"
)


def http_failure(provider: str, status: int, body: str, url: str) -> ProviderError:
    """An HTTP error from a model endpoint, said so that the person knows what to change; a
    refused prompt also says so to the host (`kind`, and the window the server stated)."""
    said = f"The server said: {api_message(body)[:500]}"
    refused = overflow(status, body)
    if refused is not None:
        return ProviderError(
            f"{provider}: HTTP {status} from {url} — {CONTEXT_HINT}. {said}",
            kind=CONTEXT_LENGTH,
            window=refused.window,
            prompt_tokens=refused.prompt_tokens,
        )
    hint = {
        401: "the API key was refused: check the key variable for this provider",
        403: "the API key may not use this model",
        404: "nothing at that address: check the base URL (OpenAI-compatible servers usually end in /v1) and the model name",
        429: "rate limited: wait and retry",
        503: "the model server is unavailable or still loading: wait and retry",
        529: "the API is overloaded: wait and retry",
    }.get(status, "the endpoint failed")
    return ProviderError(f"{provider}: HTTP {status} from {url} — {hint}. {said}")


def api_message(body: str) -> str:
    """The error's own words: `error.message` (OpenAI, Anthropic, Ollama, llama.cpp, vLLM all put
    it there) with its type, or a bare `error` string, else the body as received."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("type")
        return f"{error['message']} ({kind})" if isinstance(kind, str) and kind else error["message"]
    return body.strip()

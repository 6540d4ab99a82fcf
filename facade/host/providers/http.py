"""The one HTTP exchange every adapter makes: POST a JSON body, read a JSON answer, and turn
every way that can fail into a ProviderError that tells the person what to change. A failure that
may pass (a rate limit, an overloaded or loading server, a dropped connection) is sent again
first, with tenacity, as `Retry` says."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

import anyio
import httpx2
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from facade.host.providers.base import CONTEXT_LENGTH, ProviderError
from facade.host.providers.refusals import overflow

# Worth sending again: rate limits, a server that broke or is still loading, Anthropic's overload.
# Never 400/401/403/404 (the request or the key is wrong; the same answer would come back) nor a
# refusal of a prompt longer than the window (facade.host.overflow compacts instead).
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 529})
# A connection the server dropped or reset mid-exchange; a refused connection (no server) and a
# timeout (600 s already waited) are not retried.
RETRIED_ERRORS = (httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError)


@dataclass(frozen=True)
class Retry:
    """How a failed model request is sent again.

    Attributes:
        retries: sends after the first (FACADE_HOST_RETRIES); 0 never sends again.
        base: the first backoff in seconds; it doubles each time, with full jitter.
        cap: the longest one wait may be, a server's `Retry-After` included.
        sleep: awaits a wait (tests inject one that records the seconds instead).
    """

    retries: int = 3
    base: float = 1.0
    cap: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep, repr=False, compare=False)

    def wait(self, state: RetryCallState) -> float:
        """The server's Retry-After when it gave one, else exponential backoff; capped either way."""
        failure = state.outcome.exception() if state.outcome else None
        asked = failure.retry_after if isinstance(failure, _Transient) else None
        if asked is not None:
            return min(asked, self.cap)
        return float(wait_random_exponential(multiplier=self.base, max=self.cap)(state))


class _Transient(Exception):
    """A failure worth sending the request again for; carries the error to raise when none is left."""

    def __init__(self, error: ProviderError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def server_wait(headers: httpx2.Headers) -> float | None:
    """How long the server asked the client to wait: OpenAI's `retry-after-ms` when sent (finer
    than whole seconds), else `Retry-After`; None when it said nothing readable."""
    try:
        return max(0.0, float(headers["retry-after-ms"]) / 1000)
    except (KeyError, ValueError):
        return retry_after(headers.get("retry-after"))


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """`Retry-After` in seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3); None when
    absent or unreadable."""
    if not value or not value.strip():
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


async def post_json(
    provider: str,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    http: httpx2.AsyncClient | None,
    timeout: float,
    *,
    retry: Retry | None = None,
) -> dict[str, Any]:
    """POST a JSON body; the JSON answer, or a ProviderError that says what to change. A 429,
    5xx or 529 answer and a dropped connection are sent again as `retry` says (not at all when
    None)."""
    content = json.dumps(body, ensure_ascii=False).encode()
    all_headers = {"Content-Type": "application/json", **headers}
    policy = retry or Retry(retries=0)
    started = time.monotonic()
    attempts = AsyncRetrying(
        stop=stop_after_attempt(policy.retries + 1),
        wait=policy.wait,
        retry=retry_if_exception_type(_Transient),
        sleep=policy.sleep,
        reraise=True,
    )
    try:
        async for attempt in attempts:
            with attempt:
                response = await _post(provider, url, content, all_headers, http, timeout)
    except _Transient as failed:
        raise _gave_up(failed.error, attempts.statistics.get("attempt_number", 1), time.monotonic() - started) from None
    try:
        data = response.json()
    except ValueError as exc:
        raise ProviderError(f"{provider}: {url} answered with something that is not JSON: {response.text[:300]}") from exc
    if not isinstance(data, dict):
        raise ProviderError(f"{provider}: {url} answered with JSON that is not an object: {response.text[:300]}")
    return data


async def _post(provider: str, url: str, content: bytes, headers: dict[str, str], http: httpx2.AsyncClient | None, timeout: float) -> httpx2.Response:
    """One send: the response, a ProviderError, or a _Transient one worth sending again."""
    try:
        if http is not None:
            response = await http.post(url, content=content, headers=headers, timeout=timeout)
        else:
            async with httpx2.AsyncClient() as client:
                response = await client.post(url, content=content, headers=headers, timeout=timeout)
    except RETRIED_ERRORS as exc:
        raise _Transient(ProviderError(f"{provider}: {url} dropped the connection ({exc.__class__.__name__}: {exc}); is the model server stable?")) from exc
    except httpx2.HTTPError as exc:
        raise ProviderError(f"{provider}: cannot reach {url} ({exc.__class__.__name__}: {exc}); is the model server running?") from exc
    if response.status_code >= 400:
        error = http_failure(provider, response.status_code, response.text, url)
        if response.status_code in RETRIED_STATUSES and error.kind != CONTEXT_LENGTH:
            raise _Transient(error, server_wait(response.headers))
        raise error
    return response


def _gave_up(error: ProviderError, attempts: int, seconds: float) -> ProviderError:
    """The last failure, saying how often it was tried and what to change."""
    if attempts <= 1:
        return error
    said = f"{error} (sent {attempts} times over {seconds:.0f} s; FACADE_HOST_RETRIES sets how many times the host sends it again)"
    return ProviderError(said, kind=error.kind, window=error.window, prompt_tokens=error.prompt_tokens)


CONTEXT_HINT = (
    "the request is longer than the model's context window: set the agent's context_window (or "
    "FACADE_HOST_CONTEXT_WINDOW) to the window the server really runs, so that the host compacts "
    "the conversation before it gets there"
)


def http_failure(provider: str, status: int, body: str, url: str) -> ProviderError:
    """An HTTP error from a model endpoint, said so that the person knows what to change; a
    refused prompt also says so to the host (`kind`, and the window the server stated)."""
    # 2,000 characters, not fewer: a validation error lists every variant of a union first, and
    # llama-cpp-python's refusal of a null content names the real cause third of seven, past
    # character 500 of its 1,726.
    said = f"The server said: {api_message(body)[:2000]}"
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
        429: "rate limited: wait before asking again, or lower the request rate",
        503: "the model server is unavailable or still loading: wait until it has loaded the model",
        529: "the API is overloaded: wait before asking again",
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

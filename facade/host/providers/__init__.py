"""Model providers: OpenAI-compatible chat completions, Anthropic messages, and the fenced
protocol for models without function calling. `make_provider` picks one by name, taking what
is not given from the host's settings."""

from __future__ import annotations

from collections.abc import Mapping

from facade.host.providers.anthropic import AnthropicProvider
from facade.host.providers.base import CONTEXT_LENGTH, Artifact, ModelRequest, ModelTurn, Provider, ProviderError, SystemParts
from facade.host.providers.fenced import FencedProvider
from facade.host.providers.http import Retry
from facade.host.providers.openai import OpenAIProvider
from facade.host.settings import DEFAULT_BASE_URL, PROVIDERS, HostSettings, HostSettingsError, host_settings

__all__ = [
    "AnthropicProvider",
    "Artifact",
    "CONTEXT_LENGTH",
    "FencedProvider",
    "ModelRequest",
    "ModelTurn",
    "OpenAIProvider",
    "PROVIDERS",
    "Provider",
    "ProviderError",
    "Retry",
    "SystemParts",
    "make_provider",
]

# Anthropic retires models on announced dates (claude-sonnet-4-5: 2026-11-30, per the SDK's list of
# deprecated models); tests/host/test_wire_sdk.py fails when this default is on that list.
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"


def make_provider(
    kind: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_tokens: int | None = None,
    env: Mapping[str, str] | None = None,
    settings: HostSettings | None = None,
) -> Provider:
    """A provider by name; what is not given comes from the host's settings (facade.host.settings,
    read from `env` unless `settings` are given).

    openai / fenced: FACADE_HOST_BASE_URL (default Ollama's http://127.0.0.1:11434/v1),
    FACADE_HOST_MODEL, FACADE_HOST_API_KEY (optional), FACADE_HOST_KEEP_CACHE and FACADE_HOST_SLOT.
    anthropic: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, FACADE_HOST_MODEL or ANTHROPIC_MODEL.
    FACADE_HOST_MAX_TOKENS caps replies; FACADE_HOST_RETRIES bounds the retries of a failed request.
    """
    if kind not in PROVIDERS:
        raise ProviderError(f"unknown provider {kind!r}: choose one of {', '.join(PROVIDERS)}")
    try:
        chosen = settings or host_settings(env)
    except HostSettingsError as exc:
        raise ProviderError(str(exc)) from None
    cap = max_tokens or chosen.max_tokens
    retry = Retry(retries=chosen.retries)
    if kind in ("openai", "fenced"):
        name = model or chosen.model
        if not name:
            raise ProviderError(f"{kind}: no model named: pass --model or set FACADE_HOST_MODEL (e.g. qwen3:4b for Ollama)")
        inner = OpenAIProvider(
            base_url=base_url or chosen.base_url or DEFAULT_BASE_URL,
            model=name,
            api_key=api_key or chosen.api_key,
            max_tokens=cap,
            keep_cache=chosen.keep_cache,
            slot=chosen.slot,
            retry=retry,
        )
        return inner if kind == "openai" else FencedProvider(inner)
    key = api_key or chosen.anthropic_api_key
    if not key:
        raise ProviderError("anthropic: no API key: set ANTHROPIC_API_KEY or pass --api-key")
    return AnthropicProvider(
        model=model or chosen.model or chosen.anthropic_model or DEFAULT_ANTHROPIC_MODEL,
        api_key=key,
        base_url=base_url or chosen.anthropic_base_url,
        max_tokens=cap or 4096,
        retry=retry,
    )

"""Model providers: OpenAI-compatible chat completions, Anthropic messages, and the fenced
protocol for models without function calling. `make_provider` picks one by name, reading
what is not given from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping

from facade.host.providers.anthropic import AnthropicProvider
from facade.host.providers.base import CONTEXT_LENGTH, Artifact, ModelRequest, ModelTurn, Provider, ProviderError, SystemParts
from facade.host.providers.fenced import FencedProvider
from facade.host.providers.openai import OpenAIProvider

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
    "SystemParts",
    "make_provider",
]

PROVIDERS = ("openai", "anthropic", "fenced")
# Ollama's OpenAI-compatible root: the most common local server.
DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1"
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
) -> Provider:
    """A provider by name.

    openai / fenced: FACADE_HOST_BASE_URL (default Ollama's http://127.0.0.1:11434/v1),
    FACADE_HOST_MODEL, FACADE_HOST_API_KEY (optional). anthropic: ANTHROPIC_API_KEY,
    ANTHROPIC_BASE_URL, FACADE_HOST_MODEL or ANTHROPIC_MODEL. FACADE_HOST_MAX_TOKENS caps replies.
    """
    env = os.environ if env is None else env
    cap = max_tokens or (int(env["FACADE_HOST_MAX_TOKENS"]) if env.get("FACADE_HOST_MAX_TOKENS") else None)
    if kind in ("openai", "fenced"):
        chosen = model or env.get("FACADE_HOST_MODEL")
        if not chosen:
            raise ProviderError(f"{kind}: no model named: pass --model or set FACADE_HOST_MODEL (e.g. qwen3:4b for Ollama)")
        inner = OpenAIProvider(
            base_url=base_url or env.get("FACADE_HOST_BASE_URL") or DEFAULT_BASE_URL,
            model=chosen,
            api_key=api_key or env.get("FACADE_HOST_API_KEY") or None,
            max_tokens=cap,
        )
        return inner if kind == "openai" else FencedProvider(inner)
    if kind == "anthropic":
        key = api_key or env.get("ANTHROPIC_API_KEY")
        if not key:
            raise ProviderError("anthropic: no API key: set ANTHROPIC_API_KEY or pass --api-key")
        return AnthropicProvider(
            model=model or env.get("FACADE_HOST_MODEL") or env.get("ANTHROPIC_MODEL") or DEFAULT_ANTHROPIC_MODEL,
            api_key=key,
            base_url=base_url or env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com",
            max_tokens=cap or 4096,
        )
    raise ProviderError(f"unknown provider {kind!r}: choose one of {', '.join(PROVIDERS)}")

"""The variables the host reads (`facade chat`, `facade run`), named once: the server's command
line accepts them beside its own settings, so that one shell can set both."""

from __future__ import annotations

VARIABLES = {
    "FACADE_HOST_PROVIDER": "openai | anthropic | fenced (default openai)",
    "FACADE_HOST_MODEL": "the model, else agent.toml's",
    "FACADE_HOST_BASE_URL": "the provider's base URL (default Ollama's http://127.0.0.1:11434/v1)",
    "FACADE_HOST_API_KEY": "the provider's API key",
    "FACADE_HOST_MAX_TOKENS": "the cap on one reply's tokens",
    "FACADE_HOST_SESSIONS": "where sessions and trajectories are kept (default .facade/sessions)",
    "FACADE_HOST_CONTEXT_WINDOW": "the model's window, else agent.toml's context_window",
    "FACADE_HOST_COMPACT_AT": "the share of the window a request may fill before compaction (0.8)",
    "FACADE_HOST_SKILLS": "the folder of skills, one folder with a SKILL.md each (default .facade/skills)",
}

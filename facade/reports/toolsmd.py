"""TOOLS.md: the rules shared by every tool, written once in `TOOLS.md.j2` and rendered per
agent with its apps and their modes (from the same views that list and enforce)."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from facade.catalogue.agents import Agent
from facade.errors import ConfigError
from facade.catalogue.views import Views

TOOLS_FILE = "TOOLS.md"


def render_tools_md(views: Views, agent: Agent, conversation: str | None, template: Path) -> str:
    try:
        source = template.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the TOOLS.md template {template} ({exc.strerror}); set FACADE_TOOLS_TEMPLATE") from None
    apps = [
        {
            "name": app.domain.name,
            "mode": app.mode,
            "description": app.domain.description,
            "visible": len(app.tools),
            "total": len(app.domain.capabilities),
        }
        for app in views.apps(agent, conversation)
    ]
    return _compiled(source).render(agent=agent, apps=apps)


@functools.lru_cache(maxsize=4)
def _compiled(source: str) -> jinja2.Template:
    """The template compiled once per text: compiling was ~6 ms of each render, 0.26 s of the 44
    renders of a `facade check` (2026-12-06). Keyed by the text, so an edited file is compiled
    anew; a compiled template renders in several threads at once."""
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
    return environment.from_string(source)


def write_tools_md(views: Views, agent: Agent, template: Path) -> Path:
    """Write `agents/<name>/TOOLS.md` for the agent's default modes (no conversation)."""
    path = agent.workspace / TOOLS_FILE
    path.write_text(render_tools_md(views, agent, None, template), encoding="utf-8")
    return path

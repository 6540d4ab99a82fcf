"""`facade init DIR`: a starter deployment — the config file, one example agent, its budget,
and the catalogue lock (so that an upgrade which changes a tier or an approval shows in `check`).

Nothing is overwritten: a folder that already holds any of them is refused before a byte is
written, because a second `init` over a working deployment would reset its agents and budget.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from facade.access.elevation import MemoryElevations
from facade.catalogue.agents import AGENT_FILE, load_agents
from facade.catalogue.discovery import discover
from facade.catalogue.served import ServedCatalogues
from facade.catalogue.views import Views
from facade.errors import ConfigError
from facade.catalogue.registry import Registry
from facade.reports.check import BUDGET_FILE, measure, render_budget_file
from facade.reports.lock import LOCK_FILE, live, render_lock

CONFIG_FILE = "facade.toml"
AGENTS = "agents"
EXAMPLE = "assistant"

# The keys are the FACADE_* variables without the prefix, in lowercase; the environment wins.
CONFIG = f'''\
# Facade's settings. Each key is also an environment variable, FACADE_ and the key in capitals
# (FACADE_PORT=9000), and the environment wins. `facade settings` lists every setting.
host = "127.0.0.1"
port = 8765
# Everything the server writes: the SQLite database, the trace, the domains' folders.
data_dir = ".facade"
agents_dir = "{AGENTS}"
# PostgreSQL instead of SQLite (pip install 'facade[postgres]'):
# database_url = "postgresql+psycopg://facade@127.0.0.1:5432/facade"
# The operator's token for /api and the dashboard; better kept in the environment:
# operator_token = "change-me"
'''

AGENT = f'''\
name = "{EXAMPLE}"
description = "An example agent: projects and calendar in their default modes, and skills to ask for more."
model = "qwen3-32b"
context_window = 32768
tokenizer = "qwen3"
# The variable holding its bearer token; while it is unset, the development token
# facade-dev-{EXAMPLE} works on loopback only.
token_env = "FACADE_TOKEN_{EXAMPLE.upper()}"
# For a small model: start it with only the skills tools and the ones pinned here, and let it
# find the rest with skills.tool_search (the README's "Progressive disclosure").
# disclosure = "search"
# pinned = ["projects.project_list"]

# Each domain this agent may use: "default" (the domain's own mode), "core" or "full".
# `facade catalogue` lists the domains; a domain not listed here is invisible to the agent.
[apps]
projects = "default"
calendar = "default"
skills = "default"
'''

SYSTEM = """\
You are an assistant that keeps projects and a calendar in order. Act with tools rather than
guessing, and say what you changed.
"""


@dataclass(frozen=True)
class Starter:
    folder: Path
    written: list[Path]


def write_starter(folder: Path) -> Starter:
    """Write the starter deployment into `folder` (created if missing); ConfigError, with
    nothing written, when any part of it is already there."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} is a file; give `facade init` a folder")
    for name in (CONFIG_FILE, BUDGET_FILE.name, LOCK_FILE.name, AGENTS):
        if (folder / name).exists():
            raise ConfigError(
                f"{folder / name} already exists; nothing was written. `facade init` only starts a new "
                "deployment: give it an empty or new folder"
            )
    files = {
        Path(AGENTS) / EXAMPLE / AGENT_FILE: AGENT,
        Path(AGENTS) / EXAMPLE / "SYSTEM.md": SYSTEM,
        Path(CONFIG_FILE): CONFIG,
    }
    registry = discover()
    files[BUDGET_FILE] = _budget(registry, files)
    files[LOCK_FILE] = render_lock(live(registry))
    written = []
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as out:  # "x": never over a file that appeared meanwhile
            out.write(text)
        written.append(path)
    return Starter(folder, written)


def _budget(registry: Registry, files: dict[Path, str]) -> str:
    """The budget file with what the example agent is served today, measured as `check` does."""
    with tempfile.TemporaryDirectory(prefix="facade-init-") as scratch:
        for relative, text in files.items():
            if relative.parts[0] == AGENTS:
                (Path(scratch) / relative).parent.mkdir(parents=True, exist_ok=True)
                (Path(scratch) / relative).write_text(text, encoding="utf-8")
        agents = load_agents(Path(scratch) / AGENTS, registry, environ={})
        views = Views(registry, agents, MemoryElevations(), ServedCatalogues(registry))
        rows = [measure(views, agent) for agent in agents.values()]
    return render_budget_file(len(registry), len(registry.domains), rows)

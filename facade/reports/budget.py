"""The context budget: how full an agent's window is, segment by segment, measured where a real
tokenizer can count and labelled "estimate" where a ratio had to (DESIGN "Context budget").

Segments: `base` (the runtime's own prompt and native tools: a configured constant, always an
estimate), `system_prompt` (the agent's workspace files; a missing one counts 0 and is named),
`apps` (per domain, exactly what tools/list serves this agent in this conversation, elevations
included; for an agent that discloses by search, the always-loaded part of it, the deferred rest
reported under `disclosure`) and `free`. `model_window` is null when unknown, and `free` is then null too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from mcp_types import LATEST_PROTOCOL_VERSION

from facade.catalogue.agents import Agent
from facade.catalogue.disclosure import ALWAYS_LOADED_LIMIT
from facade.catalogue.schema import compact_json
from facade.catalogue.served import Wire
from facade.catalogue.views import Views
from facade.tokencount import bundled_name, count, count_parts

WORKSPACE_FILES = ("SYSTEM.md", "TOOLS.md", "MEMORY.md")
DEFAULT_BASE_TOKENS = 1500
# The apps segment counts the tools array exactly as tools/list serves it, in the latest
# protocol era's wire form — the array `facade check` counts. The handshake eras order keys
# differently: the same bytes, ~1-2% more tokens (infra 6,263 vs 6,200 o200k, 2026-12-01).
SERVED_ERA = LATEST_PROTOCOL_VERSION


def agent_budget(
    views: Views,
    agent: Agent,
    conversation: str | None,
    *,
    base_tokens: int = DEFAULT_BASE_TOKENS,
) -> dict[str, Any]:
    tokenizer = agent.tokenizer
    notes: list[str] = []
    if agent.tokenizer and bundled_name(agent.tokenizer) is None:
        notes.append(f"tokenizer {agent.tokenizer!r} cannot be loaded here; counts are estimates")
    elif not agent.tokenizer:
        notes.append("the agent names no tokenizer; counts are estimates")

    files = []
    for name in WORKSPACE_FILES:
        path = agent.workspace / name
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            files.append({"file": name, "missing": True, "tokens": 0, "source": "measured"})
            continue
        counted = count(text, tokenizer, "prose")
        files.append({"file": name, "missing": False, "bytes": len(text.encode()), "tokens": counted.tokens, "source": counted.source})
    missing = [f["file"] for f in files if f["missing"]]
    if missing:
        notes.append(f"missing workspace files count 0: {', '.join(missing)}")

    view = views.view(agent, conversation)
    shown = view.apps
    # What the model carries: the whole view, or in "search" disclosure the always-loaded set
    # (what a deferring host sends); the deferred rest is reported as reachable, not as used.
    loaded = set(view.always_loaded.names)
    wire = view.always_loaded.wire(SERVED_ERA)
    per_app = [sum(c.name in loaded for c in app.tools) for app in shown]
    parts = domain_parts(wire, per_app)
    counted, shares = count_parts(parts or [wire.json], tokenizer, "json")
    apps = [
        {
            "domain": app.domain.name,
            "mode": app.mode,
            "tools": n,
            "bytes": len(part.encode("utf-8")),
            "tokens": tokens,
            "source": counted.source,
        }
        for app, n, part, tokens in zip(shown, per_app, parts, shares)
    ]
    disclosure: dict[str, Any] = {"mode": agent.disclosure}
    if agent.disclosure == "search":
        listed = view.served.wire(SERVED_ERA)
        whole = count(listed.json, tokenizer, "json")
        disclosure.update(
            always_loaded={"tools": len(loaded), "tokens": counted.tokens, "limit": ALWAYS_LOADED_LIMIT},
            deferred={"tools": len(view.served.names) - len(loaded), "listed_tokens": whole.tokens, "source": whole.source},
        )

    system_tokens = sum(f["tokens"] for f in files)
    apps_tokens = counted.tokens
    used = base_tokens + system_tokens + apps_tokens
    window = agent.context_window
    if window is None:
        notes.append("the model's window is unknown (no context_window in agent.toml); free is null")
    free = None if window is None else window - used
    system_source = _source(f["source"] for f in files if not f["missing"])
    apps_source = counted.source
    return {
        "agent": agent.name,
        "conversation": conversation,
        "model": agent.model or None,
        "model_window": window,
        "tokenizer": bundled_name(tokenizer),
        "segments": {
            "base": {"tokens": base_tokens, "source": "estimate"},
            "system_prompt": {"tokens": system_tokens, "source": system_source, "files": files},
            "apps": {
                "tokens": apps_tokens,
                "source": apps_source,
                "bytes": wire.bytes,
                "era": SERVED_ERA,
                "domains": apps,
                "disclosure": disclosure,
            },
            "free": {"tokens": free, "source": _source((system_source, apps_source))},
        },
        "used": used,
        "over_budget": window is not None and used > window,
        "overshoot": max(0, used - window) if window is not None else None,
        "notes": notes,
    }


def domain_parts(wire: Wire, tools_per_domain: list[int]) -> list[str]:
    """The served array cut into one contiguous slice per domain, in order, so that the slices
    join to exactly the array: a domain's slice is its tools and the separator after them (the
    `,` before the next domain's first tool, or the closing `]`); the first also holds the
    opening `[`. A domain showing no tools gets an empty slice."""
    text = wire.json
    ends: list[int] = []
    offset = 0  # where the last tool seen ends, the `[` included before the first
    tools = iter(wire.tools)
    for n in tools_per_domain:
        for tool in itertools.islice(tools, n):
            offset += 1 + len(compact_json(tool))  # the `[` or `,` before it, then the tool
        ends.append(offset + 1 if n else (ends[-1] if ends else 0))
    if ends:
        ends[-1] = len(text)
    return [text[a:b] for a, b in zip([0, *ends], ends)]


def _source(sources: Iterable[str]) -> str:
    """A sum is an estimate when any part of it is."""
    return "estimate" if "estimate" in set(sources) else "measured"


def render_budget(report: dict[str, Any], width: int = 60) -> str:
    """The budget as a terminal bar: `#` measured, `~` estimated, `.` free, `!` past the window."""
    seg = report["segments"]
    window = report["model_window"]
    parts = [("base", seg["base"]), ("system_prompt", seg["system_prompt"]), ("apps", seg["apps"])]
    total = window or report["used"] or 1
    bar = ""
    for _, part in parts:
        cells = round(width * part["tokens"] / total)
        bar += ("~" if part["source"] == "estimate" else "#") * cells
    if window is not None and report["used"] < window:
        bar += "." * max(0, width - len(bar))
    bar = bar[:width] + ("!" * 5 if report["over_budget"] else "")
    lines = [
        f"{report['agent']}{' in ' + report['conversation'] if report['conversation'] else ''}: "
        f"{report['used']} tokens used of {window if window is not None else 'an unknown window'}",
        f"[{bar}]",
    ]
    for name, part in parts:
        lines.append(f"  {name:<14}{part['tokens']:>8}  {part['source']}")
    disclosure = seg["apps"].get("disclosure", {})
    searching = disclosure.get("mode") == "search"
    what = "its always-loaded part" if searching else "as served"
    lines.append(f"    (the tools/list array, {what}, {seg['apps']['era']} wire form: {seg['apps']['bytes']} bytes)")
    for app in seg["apps"]["domains"]:
        if searching and not app["tools"]:
            continue
        lines.append(f"    {app['domain']:<12}{app['mode']:<5}{app['tools']:>4} tools{app['tokens']:>8}  {app['source']}")
    if searching:
        kept, rest = disclosure["always_loaded"], disclosure["deferred"]
        lines.append(
            f"    disclosure by search: {kept['tools']} tools always loaded ({kept['tokens']} of at most {kept['limit']} tokens); "
            f"{rest['tools']} more reachable through skills.tool_search, loaded when found"
        )
    free = seg["free"]["tokens"]
    lines.append(f"  {'free':<14}{free if free is not None else 'null':>8}")
    if report["over_budget"]:
        lines.append(f"  OVER BUDGET by {report['overshoot']} tokens")
    lines += [f"  note: {n}" for n in report["notes"]]
    lines.append("  (# measured, ~ estimated, . free, ! past the window)")
    return "\n".join(lines)

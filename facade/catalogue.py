"""The catalogue report behind `facade catalogue`: counts by domain and tier, or an agent's view."""

from __future__ import annotations

from typing import Any

from facade.core import Core
from facade.errors import FacadeError
from facade.schema import announced_tool, compact_json


def catalogue_report(core: Core, agent_name: str | None = None, conversation: str | None = None) -> dict[str, Any]:
    domains: dict[str, dict[str, Any]] = {}
    for name, domain in core.registry.domains.items():
        tiers = {"core": 0, "full": 0}
        for cap in domain.capabilities:
            tiers[cap.tier] += 1
        domains[name] = {"default_mode": domain.default_mode, **tiers, "total": sum(tiers.values())}
    report: dict[str, Any] = {
        "capabilities": len(core.registry),
        "domains": domains,
    }
    if agent_name is not None:
        agent = core.agents.get(agent_name)
        if agent is None:
            raise FacadeError(f"unknown agent {agent_name!r}; agents: {', '.join(sorted(core.agents))}")
        view = core.views.view(agent, conversation)
        tools = [announced_tool(c) for c in view]
        report["agent"] = {
            "name": agent.name,
            "conversation": conversation,
            "modes": core.views.modes(agent, conversation),
            "tools": [t["name"] for t in tools],
            "tool_count": len(tools),
            "bytes": len(compact_json(tools).encode()),
        }
    return report


def render_report(report: dict[str, Any]) -> str:
    lines = [f"{'domain':<16}{'default':>9}{'core':>7}{'full':>7}{'total':>7}"]
    for name, row in report["domains"].items():
        lines.append(f"{name:<16}{row['default_mode']:>9}{row['core']:>7}{row['full']:>7}{row['total']:>7}")
    lines.append(f"{'all':<16}{'':>9}{'':>7}{'':>7}{report['capabilities']:>7}")
    agent = report.get("agent")
    if agent:
        modes = ", ".join(f"{d}={m}" for d, m in agent["modes"].items())
        lines += ["", f"agent {agent['name']} ({modes}): {agent['tool_count']} tools, {agent['bytes']} bytes"]
        lines += [f"  {name}" for name in agent["tools"]]
    return "\n".join(lines)

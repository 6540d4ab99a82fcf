"""The catalogue report behind `facade catalogue`: counts by domain and tier, or an agent's view."""

from __future__ import annotations

from typing import Any

from facade.catalogue.agents import Agent
from facade.serving.service import Service
from facade.errors import UsageError
from facade.catalogue.trace import last_served


def catalogue_report(service: Service, agent_name: str | None = None, conversation: str | None = None) -> dict[str, Any]:
    domains: dict[str, dict[str, Any]] = {}
    for name, domain in service.registry.domains.items():
        tiers = {"core": 0, "full": 0}
        for cap in domain.capabilities:
            tiers[cap.tier] += 1
        domains[name] = {"default_mode": domain.default_mode, **tiers, "total": sum(tiers.values())}
    report: dict[str, Any] = {
        "capabilities": len(service.registry),
        "domains": domains,
    }
    if agent_name is not None:
        agent = agent_of(service, agent_name)
        would = service.views.view(agent, conversation).served
        event = last_served(service.settings.effective_trace_path, agent.name, conversation)
        served = None
        if event is not None:
            data = event["data"]
            served = {k: data[k] for k in ("protocol", "toolCount", "bytes", "sha256", "tools")} | {"ts": event["ts"]}
        report["agent"] = {
            "name": agent.name,
            "conversation": conversation,
            # Modes and tools by this process's defaults: elevations live in the server's memory,
            # so what a conversation was really shown is `served`, read from the trace.
            "default_modes": service.views.modes(agent, None),
            "tools": list(would.names),
            "tool_count": len(would.names),
            "bytes": would.bytes,
            "sha256": would.sha256,
            "served": served,
        }
    return report


def agent_of(service: Service, name: str) -> Agent:
    """The named agent, or a UsageError listing the ones there are."""
    agent = service.agents.get(name)
    if agent is None:
        raise UsageError(f"unknown agent {name!r}; agents: {', '.join(sorted(service.agents))}")
    return agent


def render_report(report: dict[str, Any]) -> str:
    lines = [f"{'domain':<16}{'default':>9}{'core':>7}{'full':>7}{'total':>7}"]
    for name, row in report["domains"].items():
        lines.append(f"{name:<16}{row['default_mode']:>9}{row['core']:>7}{row['full']:>7}{row['total']:>7}")
    lines.append(f"{'all':<16}{'':>9}{'':>7}{'':>7}{report['capabilities']:>7}")
    agent = report.get("agent")
    if agent:
        modes = ", ".join(f"{d}={m}" for d, m in agent["default_modes"].items())
        lines += ["", f"agent {agent['name']} ({modes}): {agent['tool_count']} tools, {agent['bytes']} bytes by default"]
        served = agent["served"]
        where = f" in conversation {agent['conversation']}" if agent["conversation"] else ""
        if served is None:
            lines.append(f"served{where}: nothing yet (no tools/list in the trace)")
        else:
            lines.append(
                f"served{where}: {served['toolCount']} tools, {served['bytes']} bytes, sha256 {served['sha256'][:12]}…"
                f" over {served['protocol']}"
            )
            lines += [f"  {name}" for name in served["tools"]]
    return "\n".join(lines)

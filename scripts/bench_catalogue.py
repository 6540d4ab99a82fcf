"""What the catalogue costs a model, before and after.

For the whole catalogue and for each demo agent: bytes and exact o200k tokens of
  (a) the same capabilities served by the official SDK's MCPServer the way a real deployment
      wrote them (scripts/baseline.py) — the "before";
  (b) this facade in full mode (every tool of the scope, announced schemas);
  (c) each agent in its own default mode (what `tools/list` serves it).
Both sides are measured as the tools array in its 2026-07-28 wire form, compact JSON, in this
one process. Percentages are against (a).

    python scripts/bench_catalogue.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baseline import build_baseline  # noqa: E402

from facade.catalogue.agents import load_agents  # noqa: E402
from facade.kit.capability import Capability  # noqa: E402
from facade.catalogue.discovery import discover  # noqa: E402
from facade.access.elevation import MemoryElevations  # noqa: E402
from facade.catalogue.served import Served, ServedCatalogues  # noqa: E402
from facade.tokencount import count_exact  # noqa: E402
from facade.catalogue.views import Views  # noqa: E402
from facade.settings import DEMO_AGENTS  # noqa: E402

ERA = types.LATEST_PROTOCOL_VERSION


def baseline_wire(capabilities: list[Capability]) -> str:
    """MCPServer's tools/list for `capabilities`, from its own handler, put on the wire by the
    same code as the facade's (`facade.catalogue.served.Served.wire`), as compact JSON."""
    tools = anyio.run(build_baseline(capabilities).list_tools)
    dumped = tuple(t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools)
    return Served(tuple(t.name for t in tools), dumped).wire(ERA).json


def measure(text: str) -> dict[str, int]:
    return {"bytes": len(text.encode()), "tokens": count_exact(text, "o200k_base")}


def run() -> dict[str, Any]:
    registry = discover()
    agents = load_agents(DEMO_AGENTS, registry, environ={})
    views = Views(registry, agents, MemoryElevations())
    served = ServedCatalogues(registry)
    scopes: list[tuple[str, list[Capability], list[Capability] | None]] = [("catalogue", list(registry), None)]
    for agent in agents.values():
        apps = [c for c in registry if c.domain in agent.apps]
        scopes.append((agent.name, apps, list(views.view(agent, None))))
    rows = []
    for name, scope, own in scopes:
        before = measure(baseline_wire(scope))
        full = measure(served.serve(scope).wire(ERA).json)
        row: dict[str, Any] = {"scope": name, "tools": len(scope), "before": before, "full": full}
        if own is not None:
            row["own"] = {"tools": len(own), **measure(served.serve(own).wire(ERA).json)}
        rows.append(row)
    catalogue_before = rows[0]["before"]
    for row in rows:
        for key in ("full", "own"):
            if key in row:
                for unit in ("bytes", "tokens"):
                    row[key][f"{unit}_pct"] = round(100 * row[key][unit] / row["before"][unit], 1)
        if "own" in row:
            row["own"]["tokens_pct_of_catalogue"] = round(100 * row["own"]["tokens"] / catalogue_before["tokens"], 1)
            row["own"]["bytes_pct_of_catalogue"] = round(100 * row["own"]["bytes"] / catalogue_before["bytes"], 1)
    return {"era": ERA, "tokenizer": "o200k_base", "rows": rows}


def render(result: dict[str, Any]) -> str:
    head = (
        f"{'scope':<11}{'tools':>6} | {'(a) before':>20} | {'(b) facade, full mode':>27} | "
        f"{'(c) agent own mode':>33}"
    )
    lines = [head, f"{'':<11}{'':>6} | {'bytes':>10}{'tokens':>10} | {'bytes':>13}{'tokens':>14} | {'tools':>6}{'bytes':>13}{'tokens':>14}"]
    for row in result["rows"]:
        b, f = row["before"], row["full"]
        own = row.get("own")
        own_cells = (
            f"{own['tools']:>6}{own['bytes']:>7} {own['bytes_pct']:>4.1f}%{own['tokens']:>7} {own['tokens_pct']:>5.1f}%"
            if own
            else f"{'':>6}{'':>13}{'':>14}"
        )
        lines.append(
            f"{row['scope']:<11}{row['tools']:>6} | {b['bytes']:>10}{b['tokens']:>10} | "
            f"{f['bytes']:>7} {f['bytes_pct']:>4.1f}%{f['tokens']:>7} {f['tokens_pct']:>5.1f}% | {own_cells}"
        )
    lines.append(f"\n(percentages against (a) of the same scope; tokens: exact {result['tokenizer']}; wire form of {result['era']})")
    for row in result["rows"][1:]:
        own = row["own"]
        lines.append(
            f"{row['scope']} in its own mode = {own['tokens_pct_of_catalogue']}% of the whole catalogue's (a) tokens, "
            f"{own['bytes_pct_of_catalogue']}% of its bytes"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run()
    print(json.dumps(result, indent=2) if args.json else render(result))


if __name__ == "__main__":
    main()

"""How wrong is the budget when it has to estimate? The calibrated chars-per-token constants
(facade/reports/tokens.py) against exact counts, beside the folk ratios (4 chars/token for everything,
1.3 for JSON), on this project's demo catalogue (compact JSON schemas, as served) and the agents'
workspace prose (SYSTEM.md and rendered TOOLS.md), for every bundled tokenizer.

    python scripts/bench_budget.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facade.serving.service import build_service  # noqa: E402
from facade.reports.tokens import BUNDLED, JSON_CHARS_PER_TOKEN, PROSE_CHARS_PER_TOKEN, count_exact  # noqa: E402
from facade.reports.toolsmd import render_tools_md  # noqa: E402


def corpora() -> dict[str, tuple[str, float]]:
    service = build_service()
    catalogue = service.served.serve(list(service.registry)).json
    prose = "\n".join(
        [render_tools_md(service.views, a, None, service.settings.tools_template) for a in service.agents.values()]
        + [(a.workspace / "SYSTEM.md").read_text() for a in service.agents.values()]
    )
    return {"catalogue (JSON)": (catalogue, JSON_CHARS_PER_TOKEN), "workspace prose": (prose, PROSE_CHARS_PER_TOKEN)}


def main() -> None:
    rows = []
    for name, (text, calibrated) in corpora().items():
        folk = [("folk 4", 4.0)] + ([("folk 1.3", 1.3)] if "JSON" in name else [])
        for tokenizer in BUNDLED:
            exact = count_exact(text, tokenizer)
            cells = [(label, round(len(text) / ratio)) for label, ratio in [("calibrated", calibrated), *folk]]
            rows.append((name, tokenizer, len(text), exact, [(label, est, 100 * (est - exact) / exact) for label, est in cells]))
    print(f"{'text':<18}{'tokenizer':<13}{'chars':>8}{'exact':>8}   estimates (error vs exact)")
    worst = 0.0
    for name, tokenizer, chars, exact, cells in rows:
        parts = "   ".join(f"{label} {est} ({err:+.1f}%)" for label, est, err in cells)
        worst = max(worst, abs(cells[0][2]))
        print(f"{name:<18}{tokenizer:<13}{chars:>8}{exact:>8}   {parts}")
    print(f"\nworst calibrated error: {worst:.1f}% (target ≤ 10%)")


if __name__ == "__main__":
    main()

"""How wrong is the budget when it has to estimate? The measured chars-per-token ratios
(facade/tokencount.py, the one home of token facts) and the host's overcounting bound against
exact counts, beside the folk ratios (4 chars/token for everything, 1.3 for JSON), on this
project's demo catalogue (the whole tools/list array as served) and the agents' workspace prose
(SYSTEM.md and rendered TOOLS.md), for every bundled tokenizer. The chars/token column is the
measurement the ratios come from; re-measure here when the catalogue changes much.

    python scripts/bench_budget.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facade.serving.service import build_service  # noqa: E402
from facade.settings import Settings  # noqa: E402
from facade.tokencount import BOUND_CHARS_PER_TOKEN, BUNDLED, CHARS_PER_TOKEN, count_exact  # noqa: E402
from facade.reports.toolsmd import render_tools_md  # noqa: E402


def corpora() -> dict[str, tuple[str, float]]:
    service = build_service(Settings().for_demo())  # the demo agents' workspaces
    catalogue = service.served.serve(list(service.registry)).json
    prose = "\n".join(
        [render_tools_md(service.views, a, None, service.settings.tools_template) for a in service.agents.values()]
        + [(a.workspace / "SYSTEM.md").read_text() for a in service.agents.values()]
    )
    return {"catalogue (JSON)": (catalogue, CHARS_PER_TOKEN["json"]), "workspace prose": (prose, CHARS_PER_TOKEN["prose"])}


def main() -> None:
    rows = []
    for name, (text, calibrated) in corpora().items():
        # The host's bound must overcount everywhere; the folk ratios are there for comparison.
        folk = [("bound", BOUND_CHARS_PER_TOKEN), ("folk 4", 4.0)] + ([("folk 1.3", 1.3)] if "JSON" in name else [])
        for tokenizer in BUNDLED:
            exact = count_exact(text, tokenizer)
            cells = [(label, round(len(text) / ratio)) for label, ratio in [("calibrated", calibrated), *folk]]
            rows.append((name, tokenizer, len(text), exact, [(label, est, 100 * (est - exact) / exact) for label, est in cells]))
    print(f"{'text':<18}{'tokenizer':<13}{'chars':>8}{'exact':>8}{'chars/token':>13}   estimates (error vs exact)")
    worst = 0.0
    for name, tokenizer, chars, exact, cells in rows:
        parts = "   ".join(f"{label} {est} ({err:+.1f}%)" for label, est, err in cells)
        worst = max(worst, abs(cells[0][2]))
        print(f"{name:<18}{tokenizer:<13}{chars:>8}{exact:>8}{chars / exact:>13.2f}   {parts}")
    print(f"\nworst calibrated error: {worst:.1f}% (target ≤ 10%)")


if __name__ == "__main__":
    main()

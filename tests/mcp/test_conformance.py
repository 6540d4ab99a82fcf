"""The official MCP conformance suite (a test nobody here wrote) against `facade serve`, through
scripts/conformance.sh and its committed expected-failures baseline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, need_service

SCRIPT = REPO / "scripts" / "conformance.sh"
BASELINE = REPO / "tests" / "mcp" / "conformance-expected-failures.yml"
UNAVAILABLE = 3  # the script's exit code when Node/npm or the suite cannot be had


def baseline_entries(text: str) -> list[str]:
    return re.findall(r"^\s*-\s*([a-z0-9-]+)", text, flags=re.MULTILINE)


def run_suite(results: Path, *args: str, baseline: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FACADE_PYTHON": sys.executable, "CONFORMANCE_RESULTS": str(results)}
    if baseline is not None:
        env["CONFORMANCE_BASELINE"] = str(baseline)
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=900, env=env)
    if done.returncode == UNAVAILABLE:
        need_service("Node.js 22 and the conformance suite", done.stderr.strip()[-400:])
    return done


class TestConformance:
    """Every failure of the suite is a fixture the baseline names, and the gate bites."""

    def test_only_baseline_failures(self, tmp_path: Path) -> None:
        done = run_suite(tmp_path)
        output = done.stdout + done.stderr
        assert done.returncode == 0, output[-6000:]
        assert "Baseline check passed" in output
        # The suite ignores a baseline name it never ran: a typo would silently excuse nothing.
        expected = set(re.findall(r"^\s*~ ([a-z0-9-]+)", output, flags=re.MULTILINE))
        assert set(baseline_entries(BASELINE.read_text())) == expected
        # Every remaining entry is a capability 2026-07-28 deprecates, and says so.
        for line in BASELINE.read_text().splitlines():
            if line.strip().startswith("- "):
                assert "deprecated by MCP 2026-07-28 (SEP-2577)" in line, line
        passing = (
            "server-initialize", "tools-list", "ping", "dns-rebinding-protection", "tools-call-with-progress",
            "tools-call-elicitation", "elicitation-sep1330-enums", "tools-call-mixed-content", "resources-read-binary",
            "resources-templates-read", "prompts-get-embedded-resource", "completion-complete",
        )
        for scenario in passing:
            assert re.search(rf"^✓ {scenario}: [1-9]\d* passed, 0 failed", output, flags=re.MULTILINE), scenario
        log = (tmp_path / "server.log").read_text()
        errors = re.search(r'^ERROR |"level": "(error|critical)"|Traceback', log, flags=re.MULTILINE)
        assert errors is None, log[-4000:]

    @pytest.mark.parametrize(
        ("scenario", "baseline", "verdict"),
        [
            ("tools-call-sampling", "server: []\n", "Unexpected failures"),
            ("ping", "server:\n  - ping\n", "Baseline is stale"),
        ],
        ids=["unexpected-failure", "stale-entry"],
    )
    def test_gate_fails(self, tmp_path: Path, scenario: str, baseline: str, verdict: str) -> None:
        path = tmp_path / "baseline.yml"
        path.write_text(baseline)
        done = run_suite(tmp_path / "results", "--scenario", scenario, baseline=path)
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        assert verdict in done.stdout

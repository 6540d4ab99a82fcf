"""The official TypeScript SDK client (a client nobody here wrote) receives list_changed when an
operator approves its elevation, and then lists the full tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from facade.catalogue.discovery import discover
from tests.support import DEV, ServerProcess, need_service
from tests.test_elevation import api

SDK = "@modelcontextprotocol/sdk@1.32"
SCRIPT = Path(__file__).parent / "clients" / "list_changed.mjs"
FILES_FULL = [c for c in discover() if c.domain == "files" and c.tier == "full"]


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The SDK installed once per machine in a cache folder (npm from the registry)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        need_service("Node.js and npm", "not on PATH")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "facade-tests" / "ts-sdk"
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent", SDK], cwd=cache, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            need_service("the npm registry", done.stderr.strip()[-300:])
    return cache / "node_modules"


class TestTypeScriptClient:
    """list → skills.elevate → operator approves → list_changed → list shows the full tools."""

    def test_receives_list_changed(self, server: ServerProcess, node_modules: Path, tmp_path: Path) -> None:
        script = tmp_path / "list_changed.mjs"
        shutil.copy(SCRIPT, script)
        (tmp_path / "node_modules").symlink_to(node_modules)
        conversation = f"ts-{uuid.uuid4().hex[:8]}"
        process = subprocess.Popen(
            ["node", str(script), server.url, DEV["francis"], conversation],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert process.stdout is not None
            held = json.loads(process.stdout.readline() or "{}")
            assert held.get("step") == "held", process.stderr.read() if process.poll() is not None else held
            assert api(server, "POST", f"/api/cards/{held['card']}/approve").json()["card"]["outcome"]["ok"]
            changed = json.loads(process.stdout.readline() or "{}")
            assert process.wait(60) == 0, process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
        assert changed["changed"] >= 1
        assert changed["after"] - changed["before"] == len(FILES_FULL)
        api(server, "DELETE", f"/api/conversations/{conversation}")

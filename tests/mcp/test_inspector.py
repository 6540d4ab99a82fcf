"""The official MCP Inspector CLI (a client nobody here wrote) lists and calls tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import DEV, ServerProcess, need_service

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"  # pinned: unpinned npx on Node 20 lacks --header


def inspector(server: ServerProcess, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("npx") is None:
        need_service("npx (Node.js)", "not on PATH")
    command = ["npx", "-y", INSPECTOR, "--cli", server.url, "--header", f"Authorization: Bearer {DEV['atlas']}", *args]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=240, env={**os.environ, "HOME": str(home)}
    )
    if done.returncode != 0 and "ENOTFOUND" in done.stderr + done.stdout:
        need_service("the npm registry", "npx could not fetch the Inspector")
    assert done.returncode == 0, done.stderr + done.stdout
    return done


class TestInspector:
    """The Inspector CLI against `facade serve` with an agent's bearer token."""

    def test_lists_and_calls(self, server: ServerProcess, tmp_path: Path) -> None:
        listed = json.loads(inspector(server, tmp_path, "--method", "tools/list").stdout)
        names = {t["name"] for t in listed["tools"]}
        assert "files.list" in names
        assert all("auth_token" not in json.dumps(t["inputSchema"]) for t in listed["tools"])
        called = inspector(
            server, tmp_path, "--method", "tools/call", "--tool-name", "files.read", "--tool-arg", "path=notes/todo.txt"
        )
        result = json.loads(called.stdout)
        assert not result.get("isError"), result
        assert result["structuredContent"]

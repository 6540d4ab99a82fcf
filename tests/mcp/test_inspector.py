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


def inspector(
    server: ServerProcess, home: Path, *args: str, token: str = DEV["atlas"], conversation: str | None = None
) -> subprocess.CompletedProcess[str]:
    if shutil.which("npx") is None:
        need_service("npx (Node.js)", "not on PATH")
    headers = ["--header", f"Authorization: Bearer {token}"]
    if conversation is not None:
        headers += ["--header", f"X-Conversation-Id: {conversation}"]
    command = ["npx", "-y", INSPECTOR, "--cli", server.url, *headers, *args]
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


class TestTheTour:
    """The README's five-minute tour: separate Inspector runs that send one X-Conversation-Id
    share the elevation an operator approved; another conversation, or none, does not."""

    def test_an_approved_elevation_reaches_the_next_run(self, server: ServerProcess, tmp_path: Path) -> None:
        import httpx2

        def names(conversation: str | None) -> set[str]:
            done = inspector(server, tmp_path, "--method", "tools/list", token=DEV["francis"], conversation=conversation)
            return {t["name"] for t in json.loads(done.stdout)["tools"]}

        assert "files.grep" not in names("tour-a")
        asked = inspector(
            server, tmp_path, "--method", "tools/call", "--tool-name", "skills.elevate",
            "--tool-arg", "domain=files", "reason=grep the old invoices", token=DEV["francis"], conversation="tour-a",
        )
        card = json.loads(asked.stdout)["structuredContent"]["card_id"]
        operator = {"Authorization": f"Bearer {DEV['operator']}"}
        assert httpx2.post(f"{server.base}/api/cards/{card}/approve", headers=operator, timeout=60).status_code == 200
        try:
            assert "files.grep" in names("tour-a")
            assert "files.grep" not in names("tour-b")
            # The README's commands once sent no conversation: each run was a session of its own.
            assert "files.grep" not in names(None)
        finally:
            httpx2.delete(f"{server.base}/api/conversations/tour-a", headers=operator, timeout=60)

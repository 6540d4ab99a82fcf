"""Every tools/list served leaves a trajectory event, and `facade catalogue` reads it back."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from facade.catalogue.schema import compact_json
from tests.support import DEV, ServerProcess, base_env, mcp_client, raw_list

pytestmark = pytest.mark.anyio
ENVELOPE = {"traceSchema", "schemaVersion", "traceId", "type", "ts", "seq", "data"}


class TestTrace:
    """The served-catalogue trace records what was actually served."""

    async def test_list_is_traced_and_reported(self, server: ServerProcess, era: str) -> None:
        conversation = f"trace-{era}"
        async with mcp_client(server.url, DEV["francis"], mode=era, headers={"X-Conversation-Id": conversation}) as client:
            tools = (await client.list_tools()).tools
        trace = server.workdir / "data" / "trace.jsonl"
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        mine = [e for e in events if e["data"].get("conversation") == conversation]
        assert mine and set(mine[-1]) == ENVELOPE and mine[-1]["type"] == "context.compiled"
        data = mine[-1]["data"]
        assert data["agent"] == "francis" and data["tools"] == [t.name for t in tools]
        assert data["protocol"] == ("2025-11-25" if era == "legacy" else "2026-07-28")
        # The hash is of the tools array exactly as it crossed the wire (read raw, no SDK parsing).
        text = compact_json(raw_list(server.url, DEV["francis"], era, conversation))
        assert data["bytes"] == len(text.encode()) and data["sha256"] == hashlib.sha256(text.encode()).hexdigest()

        done = subprocess.run(
            [sys.executable, "-m", "facade.cli", "catalogue", "--agent", "francis", "--conversation", conversation, "--json"],
            cwd=server.workdir,
            env={**os.environ, **base_env(server.workdir)},
            capture_output=True,
            text=True,
        )
        served = json.loads(done.stdout)["agent"]["served"]
        assert served["tools"] == data["tools"] and served["sha256"] == data["sha256"]

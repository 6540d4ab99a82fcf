"""Many pending cards: a per-agent cap (FACADE_MAX_PENDING_CARDS) answers the model beyond it
with what to do instead, the API pages the cards, and the dashboard shows one page of them —
its size bounded by the page, not by how many cards wait."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator

import httpx2
import pytest

from tests.support import DEV, REPO, ServerProcess, jsonrpc, modern_body, modern_headers

CAP = 300
OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}


def elevate(client: httpx2.Client, server: ServerProcess, agent: str, conversation: str, reason: str, domain: str = "files") -> dict:  # type: ignore[type-arg]
    params = {"name": "skills.elevate", "arguments": {"domain": domain, "reason": reason}}
    headers = {
        **modern_headers("tools/call", "skills.elevate"),
        "Authorization": f"Bearer {DEV[agent]}",
        "X-Conversation-Id": conversation,
    }
    return jsonrpc(client.post(server.url, content=modern_body("tools/call", params), headers=headers))["result"]


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, list[int]]]:
    """A server where francis has `CAP` cards waiting, each in a conversation of its own."""
    server = ServerProcess(tmp_path_factory.mktemp("crowded"), env={"FACADE_MAX_PENDING_CARDS": str(CAP)}).start()
    ids = []
    try:
        with httpx2.Client(timeout=60) as client:
            for n in range(CAP):
                result = elevate(client, server, "francis", f"crowd-{n}", f"card number {n}")
                assert not result.get("isError"), result
                ids.append(int(result["structuredContent"]["card_id"]))
        yield server, ids
    finally:
        server.stop()


class TestCap:
    """Beyond the cap the model is told what to do; nothing is held; others are not affected."""

    def test_beyond_the_cap(self, crowded: tuple[ServerProcess, list[int]]) -> None:
        server, ids = crowded
        with httpx2.Client(timeout=60) as client:
            refused = elevate(client, server, "francis", "one-too-many", "the next one")
            again = elevate(client, server, "francis", "crowd-0", "card number 0")
            other = elevate(client, server, "infra", f"other-{uuid.uuid4().hex[:6]}", "another agent", "docker")
        text = refused["content"][0]["text"]
        assert refused["isError"], refused
        assert f"francis already has {CAP} cards waiting" in text and f"FACADE_MAX_PENDING_CARDS={CAP}" in text, text
        assert "nothing was held" in text and "skills.card_status" in text, text
        # The same request already pending is still answered with its card, not refused.
        assert not again.get("isError") and again["structuredContent"]["card_id"] == ids[0], again
        assert not other.get("isError"), other
        total = httpx2.get(f"{server.base}/api/cards?limit=1", headers=OPERATOR, timeout=30).json()["total"]
        assert total == CAP + 1  # francis's CAP and infra's one; the refused call made none
        httpx2.post(f"{server.base}/api/cards/{other['structuredContent']['card_id']}/deny", headers=OPERATOR, timeout=30)


class TestApiPages:
    """GET /api/cards?status=&limit=&offset= pages the cards, oldest first, with the total."""

    def test_pages(self, crowded: tuple[ServerProcess, list[int]]) -> None:
        server, ids = crowded

        def page(query: str) -> httpx2.Response:
            return httpx2.get(f"{server.base}/api/cards?{query}", headers=OPERATOR, timeout=30)

        first = page("status=pending&limit=50").json()
        assert (first["total"], first["limit"], first["offset"]) == (CAP, 50, 0)
        assert [c["card_id"] for c in first["cards"]] == ids[:50]
        last = page("status=pending&limit=50&offset=280").json()
        assert [c["card_id"] for c in last["cards"]] == ids[280:]
        assert page("status=pending").json()["limit"] == 100 and len(page("status=pending").json()["cards"]) == 100
        for bad in ("limit=0", "limit=1001", "limit=x", "offset=-1", "offset=a"):
            refused = page(bad)
            error = refused.json()["error"] if refused.status_code == 400 else ""
            assert "limit" in error or "offset" in error, (bad, refused.status_code, refused.text)


class TestDashboardPage:
    """300 waiting cards: the dashboard shows 20 of them and the count, and stays small."""

    def test_one_page_of_cards(self, crowded: tuple[ServerProcess, list[int]]) -> None:
        server, ids = crowded
        with httpx2.Client(base_url=server.base, timeout=60) as browser:
            assert browser.post("/dashboard/login", data={"token": DEV["operator"]}).status_code == 303
            first = browser.get("/dashboard")
            second = browser.get("/dashboard?offset=20")
        shown = [int(i) for i in re.findall(r'data-card="(\d+)"', first.text)]
        assert shown == ids[:20], shown
        assert f"Waiting for a decision ({CAP})" in first.text
        assert len(first.content) < 64_000, len(first.content)  # 476 KB before, with all 300
        assert 'href="/dashboard?offset=20"' in first.text
        assert [int(i) for i in re.findall(r'data-card="(\d+)"', second.text)] == ids[20:40]
        assert 'href="/dashboard?offset=0"' in second.text


class TestCli:
    """`facade cards list` still lists every waiting card, past the API's default page."""

    def test_lists_them_all(self, crowded: tuple[ServerProcess, list[int]]) -> None:
        server, ids = crowded
        listed = subprocess.run(
            [sys.executable, "-m", "facade.cli", "cards", "list", "--json", "--url", server.base],
            capture_output=True, text=True, timeout=120, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        assert listed.returncode == 0, listed.stderr
        shown = [c["card_id"] for c in json.loads(listed.stdout)["cards"] if c["agent"] == "francis"]
        assert shown == ids

"""Card ids never repeat: they come from the database that keeps the audit log, so neither Redis
losing its data nor a restart of a server holding cards in memory issues an id again."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx2

from tests.support import DEV, ServerProcess, free_port, raw_call
from tests.test_conversations import private_redis

OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}


def hold(server: ServerProcess) -> int:
    headers = {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": f"ids-{uuid.uuid4().hex[:8]}"}
    result = raw_call(server.url, "skills.elevate", {"domain": "files", "reason": "card id test"}, headers)
    assert not result.get("isError"), result
    return int(result["structuredContent"]["card_id"])


def deny(server: ServerProcess, card_id: int) -> None:
    response = httpx2.post(f"{server.base}/api/cards/{card_id}/deny", headers=OPERATOR, timeout=30)
    assert response.status_code == 200, response.text


def audited_ids(server: ServerProcess) -> set[int]:
    entries = httpx2.get(f"{server.base}/api/audit?limit=1000", headers=OPERATOR, timeout=30).json()["entries"]
    return {e["card_id"] for e in entries if e["card_id"] is not None}


class TestNeverRepeat:
    """A new card's id differs from every id the audit log names."""

    def test_redis_flushed_between_two_cards(self, tmp_path: Path) -> None:
        import redis

        with private_redis() as url:
            server = ServerProcess(tmp_path, env={"FACADE_REDIS_URL": url}).start()
            try:
                first = hold(server)
                deny(server, first)
                before = audited_ids(server)
                assert first in before
                redis.Redis.from_url(url).flushall()
                second = hold(server)
                assert second != first and second not in before, (second, before)
            finally:
                server.stop()

    def test_memory_cards_across_a_restart(self, tmp_path: Path) -> None:
        port = free_port()
        server = ServerProcess(tmp_path, port=port).start()
        try:
            first = hold(server)
            deny(server, first)
        finally:
            server.stop()
        again = ServerProcess(tmp_path, port=port).start()
        try:
            before = audited_ids(again)
            assert first in before
            second = hold(again)
            assert second not in before, (second, before)
        finally:
            again.stop()

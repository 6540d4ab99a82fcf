"""Conversation ids are checked where they enter — the `X-Conversation-Id` header, `_meta`, the
injected `conversation_id` argument, the MCP session, the API's path and query — by one rule
(facade/access/identity.py), with an answer that says what to change; nothing is held or run
in a conversation that could later not be revoked or swept."""

from __future__ import annotations

import json
import urllib.parse

import httpx2
import pytest

from facade.cli.httpstack import http_stack
from tests.support import ACCEPT, DEV, MODERN_META, ServerProcess, jsonrpc, legacy_open, modern_body, modern_headers, raw_call

OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}
RULE = "1 to 128 characters from A-Z a-z 0-9 . _ : @ -"
# The two the issue found: "\x1f" broke the Redis sweeper, "/" could not be revoked.
BAD = ["with/slash", "with\x1funit-separator", "x" * 129]


def elevate(server: ServerProcess, headers: dict[str, str], **extra: object) -> dict:  # type: ignore[type-arg]
    return raw_call(server.url, "skills.elevate", {"domain": "files", "reason": "bulk rename", **extra}, headers)


def cards_of(server: ServerProcess, conversation: str) -> list[dict]:  # type: ignore[type-arg]
    cards = httpx2.get(f"{server.base}/api/cards?status=all&limit=1000", headers=OPERATOR, timeout=30).json()["cards"]
    return [c for c in cards if c["conversation"] == conversation]


class TestCalls:
    """A call whose conversation id breaks the rule is an is_error result naming its source."""

    @pytest.mark.parametrize("bad", BAD)
    def test_header(self, server: ServerProcess, bad: str) -> None:
        headers = {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": bad}
        if not bad.isprintable() and http_stack().http == "httptools":
            # A control character is not allowed in a header value (RFC 9110 5.5): httptools
            # refuses the request before the app sees it (h11 passes it on, to the rule below).
            body = modern_body("tools/call", {"name": "skills.elevate", "arguments": {"domain": "files", "reason": "x"}})
            response = httpx2.post(server.url, content=body, headers={**modern_headers("tools/call", "skills.elevate"), **headers}, timeout=30)
            assert response.status_code == 400, response.text
            assert cards_of(server, bad) == []
            return
        result = elevate(server, headers)
        text = result["content"][0]["text"]
        assert result["isError"] and "X-Conversation-Id header" in text and RULE in text, text
        assert cards_of(server, bad) == []

    def test_meta(self, server: ServerProcess) -> None:
        params = {
            "name": "skills.elevate",
            "arguments": {"domain": "files", "reason": "meta"},
            "_meta": {**MODERN_META, "conversation_id": "meta\x1fid"},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
        headers = {**modern_headers("tools/call", "skills.elevate"), "Authorization": f"Bearer {DEV['francis']}"}
        result = jsonrpc(httpx2.post(server.url, content=body, headers=headers, timeout=30))["result"]
        text = result["content"][0]["text"]
        assert result["isError"] and "_meta.conversation_id" in text and RULE in text, text

    def test_injected_by_a_runtime(self, server: ServerProcess) -> None:
        headers = {"Authorization": f"Bearer {DEV['runtime']}"}
        result = elevate(server, headers, auth_token=DEV["francis"], conversation_id="runtime/conv")
        text = result["content"][0]["text"]
        assert result["isError"] and "conversation_id argument" in text and RULE in text, text
        assert cards_of(server, "runtime/conv") == []

    def test_a_valid_id_still_works(self, server: ServerProcess) -> None:
        headers = {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": "ok:conv@test-1.a_b"}
        result = raw_call(server.url, "skills.apps_list", {}, headers)
        assert not result.get("isError"), result


class TestListing:
    """tools/list refuses a bad conversation id with a JSON-RPC error that says what to change."""

    def test_legacy_session_with_a_bad_header(self, server: ServerProcess) -> None:
        headers = {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": "list/me"}
        with httpx2.Client(timeout=30) as client:
            session = legacy_open(client, server.url, headers)
            body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}).encode()
            answer = jsonrpc(client.post(server.url, content=body, headers={**ACCEPT, **session}))
            client.delete(server.url, headers=session)
        assert "error" in answer and "X-Conversation-Id header" in answer["error"]["message"], answer
        assert RULE in answer["error"]["message"]


class TestApi:
    """The API's conversation ids follow the same rule: a 400 that says what to change, never a
    404 that hides a conversation which cannot be revoked."""

    @pytest.mark.parametrize("bad", BAD)
    def test_delete_conversation(self, server: ServerProcess, bad: str) -> None:
        path = "/api/conversations/" + urllib.parse.quote(bad, safe="")
        response = httpx2.delete(f"{server.base}{path}", headers=OPERATOR, timeout=30)
        assert response.status_code == 400, (response.status_code, response.text)
        assert RULE in response.json()["error"] and "conversation id" in response.json()["error"]

    def test_query_conversation(self, server: ServerProcess) -> None:
        query = urllib.parse.urlencode({"conversation_id": "a/b"})
        response = httpx2.get(f"{server.base}/api/agents/francis/tools?{query}", headers=OPERATOR, timeout=30)
        assert response.status_code == 400 and RULE in response.json()["error"], response.text

    def test_a_valid_id_is_deleted(self, server: ServerProcess) -> None:
        response = httpx2.delete(f"{server.base}/api/conversations/ok:conv@test-1.a_b", headers=OPERATOR, timeout=30)
        assert response.status_code == 200 and response.json()["conversation"] == "ok:conv@test-1.a_b"

"""`/mcp` refuses a request without a usable token with HTTP 401 and a `WWW-Authenticate` that
names the resource metadata (RFC 9728 §5.1), in both protocol eras, as the MCP spec's
Authorization section asks of a resource server. It was HTTP 200 with a JSON-RPC error in the
2026-07-28 era, and a 401 naming only `realm="facade"` in the handshake era."""

from __future__ import annotations

import httpx2
import pytest

from benchkit import INITIALIZE
from tests.support import ACCEPT, DEV, ServerProcess, legacy_body, modern_body, modern_headers


def post(server: ServerProcess, era: str, method: str, params: dict, token: str | None) -> httpx2.Response:  # type: ignore[type-arg]
    auth = {"Authorization": f"Bearer {token}"} if token is not None else {}
    if era == "legacy":
        body = INITIALIZE if method == "initialize" else legacy_body(method, params)
        return httpx2.post(server.url, content=body, headers={**ACCEPT, **auth}, timeout=30)
    return httpx2.post(server.url, content=modern_body(method, params), headers={**modern_headers(method, params.get("name")), **auth}, timeout=30)


def challenge_of(response: httpx2.Response) -> str:
    assert response.status_code == 401, (response.status_code, response.text)
    return response.headers["www-authenticate"]


class TestChallenge:
    """A missing token is told where the metadata is; a bad one is told it is invalid too."""

    @pytest.mark.parametrize("era", ["legacy", "modern"])
    def test_no_token(self, server: ServerProcess, era: str) -> None:
        method = "initialize" if era == "legacy" else "tools/list"
        challenge = challenge_of(post(server, era, method, {}, None))
        assert challenge.startswith("Bearer ")
        assert f'resource_metadata="{server.base}/.well-known/oauth-protected-resource/mcp"' in challenge
        assert "error=" not in challenge  # RFC 6750 §3.1: no error code when no credentials were sent

    @pytest.mark.parametrize("era", ["legacy", "modern"])
    def test_unknown_token(self, server: ServerProcess, era: str) -> None:
        method = "initialize" if era == "legacy" else "tools/list"
        response = post(server, era, method, {}, "not-a-token")
        challenge = challenge_of(response)
        assert 'error="invalid_token"' in challenge and "resource_metadata=" in challenge
        assert "not-a-token" not in challenge and "not-a-token" not in response.text

    def test_a_modern_call_without_any_token(self, server: ServerProcess) -> None:
        response = post(server, "modern", "tools/call", {"name": "files.list", "arguments": {"path": ""}}, None)
        assert "resource_metadata=" in challenge_of(response)

    def test_an_injected_token_is_still_a_token(self, server: ServerProcess) -> None:
        """The host-side hook may carry the agent's token in the call's arguments alone
        (DESIGN "Identity"); such a call is answered, not challenged."""
        params = {"name": "files.list", "arguments": {"path": "", "auth_token": DEV["atlas"]}}
        response = post(server, "modern", "tools/call", params, None)
        assert response.status_code == 200 and not response.json()["result"]["isError"], response.text

    def test_a_good_token_passes(self, server: ServerProcess) -> None:
        response = post(server, "modern", "tools/list", {}, DEV["atlas"])
        assert response.status_code == 200 and response.json()["result"]["tools"]

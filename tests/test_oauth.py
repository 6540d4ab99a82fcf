"""MCP authorization as a resource server (facade/access/oauth.py, facade/mcp/gate.py,
facade/web/wellknown.py) against a real authorization server started here
(tests/authorization_server.py) that issues real signed JWT access tokens.

A real `facade serve` trusts it (FACADE_OAUTH_ISSUERS); the official SDK's OAuth client finds the
authorization server from the server's 401 and metadata, gets a token with the client-credentials
grant and calls tools as the agent whose agent.toml lists its client id, in both eras.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from joserfc.jwk import KeySet
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from benchkit import INITIALIZE
from facade.access.oauth import InvalidToken, JwtVerifier, OAuthConfig, metadata_urls
from facade.catalogue.discovery import discover
from facade.errors import ConfigError, Unavailable
from tests.authorization_server import AuthorizationServer, new_key
from tests.support import ACCEPT, DEV, ServerProcess, modern_body, modern_headers, write_agents

REGISTRY = discover()
FILES_FULL = next(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")
OPERATOR_SCOPE = "facade:operator"
CLIENTS = {"atlas-client": "atlas-secret", "francis-client": "francis-secret", "ops-client": "ops-secret"}


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthorizationServer]:
    server = AuthorizationServer(clients=dict(CLIENTS)).start()
    yield server
    server.stop()


def agents_with_clients(folder: Path) -> Path:
    """The tests' agents, with atlas and francis each accepting one OAuth client."""
    write_agents(folder)
    for agent in ("atlas", "francis"):
        path = folder / agent / "agent.toml"
        text = path.read_text()
        path.write_text(text.replace("\n[apps]", f'\noauth_clients = ["{agent}-client"]\n\n[apps]', 1))
    return folder


@pytest.fixture(scope="module")
def facade(tmp_path_factory: pytest.TempPathFactory, issuer: AuthorizationServer) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp("oauth")
    agents_with_clients(workdir / "agents")
    env = {
        "FACADE_OAUTH_ISSUERS": issuer.issuer,
        "FACADE_OAUTH_OPERATOR_SCOPE": OPERATOR_SCOPE,
        # Every unknown key id may fetch again, so that the rotation below is seen at once; the
        # limit itself is tested on the verifier (TestKeyFetching).
        "FACADE_OAUTH_REFETCH_SECONDS": "0",
    }
    proc = ServerProcess(workdir, env=env).start()
    yield proc
    proc.stop()


class MemoryStorage:
    """The SDK client's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def oauth_listing_and_call(facade: ServerProcess, issuer: AuthorizationServer, client_id: str, era: str) -> tuple[set[str], Any]:
    auth = ClientCredentialsOAuthProvider(
        server_url=facade.url, storage=MemoryStorage(), client_id=client_id, client_secret=CLIENTS[client_id], issuer=issuer.issuer
    )
    async with create_mcp_http_client(auth=auth) as http:
        async with Client(streamable_http_client(facade.url, http_client=http), mode=era, cache=None) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            called = await client.call_tool("files.list", {"path": ""})
    return names, called


async def static_listing(facade: ServerProcess, token: str, era: str) -> set[str]:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with Client(streamable_http_client(facade.url, http_client=http), mode=era, cache=None) as client:
            return {t.name for t in (await client.list_tools()).tools}


def request(facade: ServerProcess, era: str, token: str | None) -> httpx2.Response:
    """A first request of the era: a 2026-07-28 tools/list, or a 2025-11-25 initialize."""
    auth = {"Authorization": f"Bearer {token}"} if token is not None else {}
    if era == "legacy":
        return httpx2.post(facade.url, content=INITIALIZE, headers={**ACCEPT, **auth}, timeout=30)
    return httpx2.post(facade.url, content=modern_body("tools/list", {}), headers={**modern_headers("tools/list"), **auth}, timeout=30)


@pytest.mark.anyio
class TestAcceptedTokens:
    """A token of the trusted issuer, for this resource, whose client an agent lists."""

    async def test_the_sdk_oauth_client_connects_as_the_mapped_agent(self, facade: ServerProcess, issuer: AuthorizationServer, era: str) -> None:
        names, called = await oauth_listing_and_call(facade, issuer, "atlas-client", era)
        assert names == await static_listing(facade, DEV["atlas"], era)
        assert FILES_FULL in names  # atlas's view: files in full
        assert not called.is_error

    async def test_another_client_is_another_agent(self, facade: ServerProcess, issuer: AuthorizationServer, era: str) -> None:
        names, _ = await oauth_listing_and_call(facade, issuer, "francis-client", era)
        assert names == await static_listing(facade, DEV["francis"], era)
        assert FILES_FULL not in names

    def test_static_tokens_still_work_beside_it(self, facade: ServerProcess) -> None:
        assert request(facade, "modern", DEV["atlas"]).status_code == 200

    def test_azp_stands_in_for_client_id(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        token = issuer.mint(aud=facade.url, azp="atlas-client", sub="someone")
        assert request(facade, "modern", token).status_code == 200


class TestRefusedTokens:
    """Each bad token is a 401 whose challenge says invalid_token, why, and where the metadata is."""

    CASES = {
        "expired": ({"lifetime": -600}, "expired"),
        "wrong-audience": ({"aud": "http://127.0.0.1:1/mcp"}, "another resource"),
        "no-audience": ({"aud": None}, "lacks"),
        "no-expiry": ({"exp": None}, "lacks"),
        "unknown-client": ({"client_id": "stranger"}, "oauth_clients"),
    }

    @pytest.mark.parametrize("case", list(CASES))
    def test_refused(self, facade: ServerProcess, issuer: AuthorizationServer, era: str, case: str) -> None:
        claims, why = self.CASES[case]
        token = issuer.mint(**{"aud": facade.url, "client_id": "atlas-client", **claims})
        assert_challenged(request(facade, era, token), facade, why)

    def test_wrong_issuer(self, facade: ServerProcess, era: str) -> None:
        other = AuthorizationServer(clients=dict(CLIENTS)).start()
        try:
            token = other.mint(aud=facade.url, client_id="atlas-client")
            assert_challenged(request(facade, era, token), facade, "not issued by an authorization server this server trusts")
            assert other.jwks_fetches == 0  # an untrusted issuer's keys are never fetched
        finally:
            other.stop()

    def test_bad_signature(self, facade: ServerProcess, issuer: AuthorizationServer, era: str) -> None:
        """Signed with a stray key under the issuer's own key id."""
        token = issuer.mint(key=new_key(), kid=issuer.key.kid, aud=facade.url, client_id="atlas-client")
        assert_challenged(request(facade, era, token), facade, "signature does not verify")

    def test_a_tampered_claim(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        header, payload, signature = issuer.mint(aud=facade.url, client_id="francis-client").split(".")
        forged = issuer.mint(aud=facade.url, client_id="atlas-client").split(".")[1]
        assert_challenged(request(facade, "modern", f"{header}.{forged}.{signature}"), facade, "signature does not verify")

    def test_no_token(self, facade: ServerProcess, era: str) -> None:
        response = request(facade, era, None)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == f'Bearer resource_metadata="{facade.base}/.well-known/oauth-protected-resource/mcp"'


def assert_challenged(response: httpx2.Response, facade: ServerProcess, why: str) -> None:
    assert response.status_code == 401, response.text
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token", error_description="')
    assert why in challenge and why in response.json()["error"]["message"]
    assert challenge.endswith(f'resource_metadata="{facade.base}/.well-known/oauth-protected-resource/mcp"')


class TestRotation:
    """The issuer switches its signing key: a token with the new key id is accepted after one
    fetch of the JWKS."""

    def test_a_new_key_is_fetched_and_accepted(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        assert request(facade, "modern", issuer.mint(aud=facade.url, client_id="atlas-client")).status_code == 200
        fetched = issuer.jwks_fetches
        issuer.rotate()
        rotated = issuer.mint(aud=facade.url, client_id="atlas-client")
        assert request(facade, "modern", rotated).status_code == 200
        assert issuer.jwks_fetches == fetched + 1
        assert request(facade, "legacy", rotated).status_code == 200
        assert issuer.jwks_fetches == fetched + 1  # kept, not fetched per request


class TestMetadata:
    """RFC 9728 §3: the document at the path-suffixed and the bare well-known URL."""

    @pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])
    def test_document(self, facade: ServerProcess, issuer: AuthorizationServer, path: str) -> None:
        response = httpx2.get(f"{facade.base}{path}", timeout=30)
        assert response.status_code == 200 and response.headers["content-type"] == "application/json"
        assert response.json() == {
            "resource": facade.url,
            "authorization_servers": [issuer.issuer],
            "scopes_supported": [OPERATOR_SCOPE],
            "bearer_methods_supported": ["header"],
            "resource_name": "Facade",
        }

    def test_browsers_may_read_it(self, facade: ServerProcess) -> None:
        url = f"{facade.base}/.well-known/oauth-protected-resource/mcp"
        asked = httpx2.options(url, headers={"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}, timeout=30)
        assert asked.status_code == 204 and asked.headers["access-control-allow-origin"] == "*"
        assert httpx2.get(url, timeout=30).headers["access-control-allow-origin"] == "*"

    def test_without_an_issuer(self, server: ServerProcess) -> None:
        """Static tokens only: the resource is described, with no authorization server."""
        document = httpx2.get(f"{server.base}/.well-known/oauth-protected-resource/mcp", timeout=30).json()
        assert document == {"resource": server.url, "bearer_methods_supported": ["header"], "resource_name": "Facade"}


class TestOperatorScope:
    """FACADE_OAUTH_OPERATOR_SCOPE makes a token the operator on /api; nothing else does."""

    def api(self, facade: ServerProcess, path: str, token: str) -> int:
        return httpx2.get(f"{facade.base}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=30).status_code

    def test_the_scope_is_the_operator(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        operator = issuer.mint(aud=facade.url, client_id="ops-client", scope=f"openid {OPERATOR_SCOPE}")
        assert self.api(facade, "/api/cards", operator) == 200
        assert request(facade, "modern", operator).status_code == 401  # the operator lists no tools

    def test_an_agent_with_the_scope_is_the_operator_on_the_api(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        token = issuer.mint(aud=facade.url, client_id="atlas-client", scope=OPERATOR_SCOPE)
        assert self.api(facade, "/api/cards", token) == 200
        assert request(facade, "modern", token).status_code == 200  # and atlas on /mcp

    def test_without_the_scope(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        agent = issuer.mint(aud=facade.url, client_id="atlas-client", scope="files")
        assert self.api(facade, "/api/cards", agent) == 403
        assert self.api(facade, "/api/agents/atlas/tools", agent) == 200
        assert self.api(facade, "/api/agents/francis/tools", agent) == 403
        stranger = issuer.mint(aud=facade.url, client_id="ops-client")
        assert self.api(facade, "/api/cards", stranger) == 401
        expired = issuer.mint(aud=facade.url, client_id="ops-client", scope=OPERATOR_SCOPE, lifetime=-600)
        assert self.api(facade, "/api/cards", expired) == 401


class TestNoTokenInTheLog:
    def test_no_token_is_logged(self, facade: ServerProcess, issuer: AuthorizationServer) -> None:
        """Accepted, expired, forged and unmapped tokens, over both eras and the API: none of
        them, nor its payload or signature, is written to the server's log."""
        tokens = [
            issuer.mint(aud=facade.url, client_id="atlas-client"),
            issuer.mint(aud=facade.url, client_id="atlas-client", lifetime=-600),
            issuer.mint(key=new_key(), kid=issuer.key.kid, aud=facade.url, client_id="atlas-client"),
            issuer.mint(aud=facade.url, client_id="stranger", scope=OPERATOR_SCOPE),
        ]
        for token in tokens:
            for era in ("legacy", "modern"):
                request(facade, era, token)
            httpx2.get(f"{facade.base}/api/cards", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        log = facade.log()
        assert "oauth.keys_fetched" in log  # the log is the server's, and it did verify
        leaked = [i for i, t in enumerate(tokens) if any(part in log for part in (t, *t.split(".")[1:]))]
        assert leaked == []


@pytest.mark.anyio
class TestKeyFetching:
    """The verifier against the real authorization server, with a clock the test moves."""

    def verifier(self, issuer: AuthorizationServer, clock: list[float], refetch: float = 60) -> JwtVerifier:
        config = OAuthConfig(issuers=(issuer.issuer,), audience="urn:test", refetch_seconds=refetch)
        return JwtVerifier(config, {"atlas-client": "atlas"}, clock=lambda: clock[0])

    async def test_unknown_key_ids_fetch_at_most_once_per_interval(self) -> None:
        issuer = AuthorizationServer().start()
        try:
            clock = [1000.0]
            verifier = self.verifier(issuer, clock)
            good = issuer.mint(aud="urn:test", client_id="atlas-client")
            await verifier.prepare(good)
            assert verifier.verify(good).agent == "atlas" and issuer.jwks_fetches == 1
            for _ in range(25):  # a hostile stream of made-up key ids
                forged = issuer.mint(key=new_key(), aud="urn:test", client_id="atlas-client")
                await verifier.prepare(forged)
                with pytest.raises(InvalidToken, match="does not publish"):
                    verifier.verify(forged)
            assert issuer.jwks_fetches == 1
            clock[0] += 61
            issuer.rotate()
            rotated = issuer.mint(aud="urn:test", client_id="atlas-client")
            await verifier.prepare(rotated)
            assert verifier.verify(rotated).agent == "atlas" and issuer.jwks_fetches == 2
        finally:
            issuer.stop()

    async def test_concurrent_requests_share_one_fetch(self) -> None:
        issuer = AuthorizationServer().start()
        try:
            verifier = self.verifier(issuer, [0.0])
            token = issuer.mint(aud="urn:test", client_id="atlas-client")
            async with anyio.create_task_group() as group:
                for _ in range(20):
                    group.start_soon(verifier.prepare, token)
            assert issuer.jwks_fetches == 1
        finally:
            issuer.stop()

    async def test_an_unreachable_issuer_is_unavailable(self) -> None:
        down = AuthorizationServer()  # never started: nothing listens on its port
        verifier = self.verifier(down, [0.0])
        with pytest.raises(Unavailable, match="cannot be fetched"):
            await verifier.prepare(down.mint(aud="urn:test", client_id="atlas-client"))

    async def test_a_configured_jwks_url(self) -> None:
        issuer = AuthorizationServer().start()
        try:
            config = OAuthConfig(issuers=("https://elsewhere.example",), audience="urn:test", jwks_url=f"{issuer.issuer}/jwks")
            verifier = JwtVerifier(config, {"c": "atlas"})
            token = issuer.mint(iss="https://elsewhere.example", aud="urn:test", client_id="c")
            await verifier.prepare(token)
            assert verifier.verify(token).agent == "atlas"
        finally:
            issuer.stop()


class TestUnits:
    def test_metadata_urls(self) -> None:
        assert metadata_urls("https://as.example/tenant/1") == [
            "https://as.example/.well-known/oauth-authorization-server/tenant/1",
            "https://as.example/tenant/1/.well-known/openid-configuration",
        ]
        assert metadata_urls("https://as.example") == [
            "https://as.example/.well-known/oauth-authorization-server",
            "https://as.example/.well-known/openid-configuration",
        ]

    def test_hs256_with_the_public_key_is_refused(self) -> None:
        """The algorithm-confusion forgery: HMAC keyed with the issuer's public key (made here
        by hand, as an attacker would; joserfc itself refuses to sign it)."""
        import base64
        import hashlib
        import hmac
        import json

        def b64(data: bytes) -> str:
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

        key = new_key()
        config = OAuthConfig(issuers=("https://as.example",), audience="urn:test")
        verifier = JwtVerifier(config, {"c": "atlas"})
        source = verifier._sources["https://as.example"]  # noqa: SLF001 - the kept keys, as a fetch would leave them
        source.keys = KeySet.import_key_set(KeySet([key]).as_dict(private=False))
        claims = {"iss": "https://as.example", "aud": "urn:test", "exp": 2**40, "client_id": "c"}
        signing_input = f"{b64(json.dumps({'alg': 'HS256', 'kid': key.kid}).encode())}.{b64(json.dumps(claims).encode())}"
        mac = hmac.new(key.as_pem(private=False), signing_input.encode(), hashlib.sha256).digest()
        with pytest.raises(InvalidToken, match="algorithm this server does not accept|cannot be read"):
            verifier.verify(f"{signing_input}.{b64(mac)}")


class TestConfiguration:
    """The audience a token must name has to be knowable, or the server does not start."""

    def test_off_loopback_without_a_url(self) -> None:
        from facade.serving.service import jwt_verifier
        from facade.settings import Settings

        settings = Settings(host="0.0.0.0", oauth_issuers="https://as.example")
        with pytest.raises(ConfigError, match="set FACADE_PUBLIC_URL"):
            jwt_verifier(settings, {})
        public = Settings(host="0.0.0.0", oauth_issuers="https://as.example", public_url="https://mcp.example.com/")
        verifier = jwt_verifier(public, {})
        assert verifier is not None and verifier.config.audience == "https://mcp.example.com/mcp"
        named = Settings(host="0.0.0.0", oauth_issuers="https://as.example", oauth_audience="api://facade")
        assert jwt_verifier(named, {}).config.audience == "api://facade"  # type: ignore[union-attr]

    def test_serve_says_what_to_set(self, tmp_path: Path) -> None:
        import os
        import subprocess
        import sys

        from tests.support import base_env, free_port

        env = {**os.environ, **base_env(tmp_path), "FACADE_HOST": "0.0.0.0", "FACADE_OAUTH_ISSUERS": "https://as.example"}
        done = subprocess.run(
            [sys.executable, "-m", "facade.cli", "serve", "--port", str(free_port())],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode != 0 and "Traceback" not in done.stderr
        assert done.stderr.startswith("error: FACADE_OAUTH_ISSUERS is set") and "FACADE_PUBLIC_URL" in done.stderr

    def test_off_by_default(self) -> None:
        from facade.serving.service import jwt_verifier
        from facade.settings import Settings

        assert jwt_verifier(Settings(), {}) is None


class TestMangledTokens:
    def test_every_mangled_token_is_refused_with_a_reason(self) -> None:
        """3,000 tokens with 1-5 characters changed: each is refused as InvalidToken (never
        another exception), or decodes to the very bytes of the original (base64's spare
        trailing bits), so nothing it claims has changed."""
        import base64
        import random
        import string

        def raw(segment: str) -> bytes:
            return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))

        issuer = AuthorizationServer()
        verifier = JwtVerifier(OAuthConfig(issuers=(issuer.issuer,), audience="urn:test"), {"c": "atlas"})
        verifier._sources[issuer.issuer].keys = KeySet.import_key_set(KeySet([issuer.key]).as_dict(private=False))  # noqa: SLF001
        good = issuer.mint(aud="urn:test", client_id="c")
        assert verifier.verify(good).agent == "atlas"
        rng = random.Random(14)
        refused = 0
        for _ in range(3000):
            chars = list(good)
            for _ in range(rng.randint(1, 5)):
                chars[rng.randrange(len(chars))] = rng.choice(string.ascii_letters + string.digits + "-_.=+/")
            mangled = "".join(chars)
            try:
                verifier.verify(mangled)
            except InvalidToken:
                refused += 1
                continue
            assert [raw(s) for s in mangled.split(".")] == [raw(s) for s in good.split(".")]
        assert refused > 2900

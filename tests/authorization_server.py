"""A real OAuth 2.1 authorization server for the tests: RFC 8414 metadata, a JWKS, and a token
endpoint for the client-credentials grant that issues RFC 9068 JWT access tokens signed with real
RSA keys (joserfc, the library the server verifies with). It runs with uvicorn on a free loopback
port in a thread of the test process, so a test can also mint tokens it would never issue
(expired, for another audience, signed with a stray key) and switch its signing key.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import uvicorn
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.support import free_port


def new_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": uuid.uuid4().hex[:12], "use": "sig", "alg": "RS256"}, private=True)


@dataclass
class AuthorizationServer:
    """Clients are `client_id → secret`; `jwks_fetches` counts what resource servers fetched."""

    clients: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    key: RSAKey = field(default_factory=new_key)
    jwks_fetches: int = 0
    minted: list[str] = field(default_factory=list)
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def rotate(self) -> RSAKey:
        """Signs with a new key from now on; the JWKS publishes only the new one."""
        self.key = new_key()
        return self.key

    def mint(self, *, key: RSAKey | None = None, lifetime: float = 300, kid: str | None = None, **claims: Any) -> str:
        """A token as this server would issue it, with `claims` added or replacing its own (a
        claim given as None is left out)."""
        now = int(time.time())
        body = {"iss": self.issuer, "iat": now, "exp": now + int(lifetime), "jti": secrets.token_hex(8), **claims}
        signing = key or self.key
        header = {"alg": "RS256", "typ": "at+jwt", "kid": kid or signing.kid}
        token = jwt.encode(header, {k: v for k, v in body.items() if v is not None}, signing)
        self.minted.append(token)
        return token

    def app(self) -> Starlette:
        async def metadata(_: Request) -> JSONResponse:
            return JSONResponse(
                {
                    "issuer": self.issuer,
                    # Required by the SDK's metadata model; this server grants no codes (below).
                    "authorization_endpoint": f"{self.issuer}/authorize",
                    "token_endpoint": f"{self.issuer}/token",
                    "jwks_uri": f"{self.issuer}/jwks",
                    "grant_types_supported": ["client_credentials"],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                    "response_types_supported": ["code"],
                }
            )

        async def jwks(_: Request) -> JSONResponse:
            self.jwks_fetches += 1
            return JSONResponse(KeySet([self.key]).as_dict(private=False))

        async def token(request: Request) -> JSONResponse:
            form = await request.form()
            client_id, secret = _client_credentials(request, form)
            if client_id is None or self.clients.get(client_id) != secret:
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            if form.get("grant_type") != "client_credentials":
                return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
            resource = form.get("resource")
            scope = str(form.get("scope") or "")
            issued = self.mint(client_id=client_id, sub=client_id, aud=str(resource) if resource else None, scope=scope or None)
            return JSONResponse({"access_token": issued, "token_type": "Bearer", "expires_in": 300, **({"scope": scope} if scope else {})})

        async def authorize(_: Request) -> JSONResponse:
            return JSONResponse({"error": "unsupported_response_type"}, status_code=400)

        return Starlette(
            routes=[
                Route("/authorize", authorize),
                Route("/.well-known/oauth-authorization-server", metadata),
                Route("/jwks", jwks),
                Route("/token", token, methods=["POST"]),
            ]
        )

    def start(self, timeout: float = 60) -> AuthorizationServer:
        self._server = uvicorn.Server(uvicorn.Config(self.app(), host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, name="authorization-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"the test authorization server did not start on port {self.port}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(60)


def _client_credentials(request: Request, form: Any) -> tuple[str | None, str | None]:
    """client_secret_basic (RFC 6749 §2.3.1), else client_secret_post."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("basic "):
        user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        return unquote(user), unquote(password)
    client_id, secret = form.get("client_id"), form.get("client_secret")
    return (str(client_id) if client_id else None), (str(secret) if secret else None)

"""JWT access tokens from the configured authorization servers (the MCP spec's Authorization
section, RFC 9068): which issuer signed a token, with which of its published keys, for which
audience, until when, and which agent (or operator) it makes the caller.

The signature and the claims are checked by joserfc, never here by hand. An issuer's keys (its
JWKS) are fetched with an async client, from the `jwks_uri` of its metadata (RFC 8414, then
OpenID Connect discovery) unless FACADE_OAUTH_JWKS_URL names them, and kept: a token signed with
a key id the kept set lacks (the issuer rotated its key) fetches them again, at most once per
`refetch_seconds` per issuer, so a stream of forged key ids cannot make the server fetch on every
request. A reason given for a refused token describes it; it never repeats the token or a claim
the token's sender chose.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
import httpx2
import structlog
from joserfc import jws, jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    InvalidKeyIdError,
    JoseError,
    MissingClaimError,
    UnsupportedAlgorithmError,
)
from joserfc.jwk import KeySet

from facade.errors import InvalidToken, Unavailable

log = structlog.get_logger("facade.access.oauth")

# Asymmetric algorithms only: a resource server holds no shared secret with the issuer, and
# accepting HS256 with a public key as its secret is the classic JWT forgery.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
LEEWAY_SECONDS = 30  # clock skew between this server and the issuer, for exp, nbf and iat
KEYS_MAX_AGE_SECONDS = 3600  # kept keys are fetched again after this, so a withdrawn key stops working
FETCH_TIMEOUT_SECONDS = 10
CLIENT_CLAIM_FALLBACK = {"client_id": "azp"}  # OpenID Connect names the client `azp`


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """What an accepted token must satisfy.

    Attributes:
        issuers: the trusted issuer identifiers, compared exactly with a token's `iss`.
        audience: the value a token's `aud` must hold (this server's resource URL by default).
        jwks_url: where every issuer's keys are, instead of each issuer's metadata.
        agent_claim: the claim whose value is looked up among the agents' `oauth_clients`.
        operator_scope: a scope that makes the token's holder the operator on /api.
        refetch_seconds: the least time between two key fetches of one issuer.
    """

    issuers: tuple[str, ...]
    audience: str
    jwks_url: str | None = None
    agent_claim: str = "client_id"
    operator_scope: str | None = None
    refetch_seconds: float = 60


@dataclass(frozen=True, slots=True)
class Verified:
    """An accepted token: the agent its client maps to (None: no agent lists it) and whether it
    carries the operator scope."""

    agent: str | None
    operator: bool


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata is: RFC 8414 §3.1 (the well-known part inserted before the
    issuer's path), then OpenID Connect Discovery (appended to it)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [f"{origin}/.well-known/oauth-authorization-server{path}", f"{issuer.rstrip('/')}/.well-known/openid-configuration"]


class KeySource:
    """One issuer's signing keys, fetched when needed and kept."""

    def __init__(self, issuer: str, jwks_url: str | None, refetch_seconds: float, clock: Callable[[], float]) -> None:
        self.issuer = issuer
        self.jwks_url = jwks_url
        self.refetch_seconds = refetch_seconds
        self.clock = clock
        self.keys: KeySet | None = None
        self.kids: frozenset[str] = frozenset()
        self.fetched_at = float("-inf")
        self.tried_at = float("-inf")
        self._lock: anyio.Lock | None = None

    def needs(self, kid: str | None) -> bool:
        stale = self.clock() - self.fetched_at > KEYS_MAX_AGE_SECONDS
        return self.keys is None or stale or (kid is not None and kid not in self.kids)

    async def ensure(self, kid: str | None) -> None:
        """Fetches the keys when none are kept, when they are old, or when `kid` is not among
        them, unless a fetch was tried less than `refetch_seconds` ago. Raises Unavailable only
        when no keys are kept at all."""
        if not self.needs(kid):
            return
        self._lock = self._lock or anyio.Lock()
        async with self._lock:  # one fetch at a time; those who waited see its keys
            if not self.needs(kid) or self.clock() - self.tried_at < self.refetch_seconds:
                return self._check_kept()
            self.tried_at = self.clock()
            try:
                keys = await self._fetch()
            except (httpx2.HTTPError, ValueError, KeyError, TypeError, JoseError) as exc:  # unreachable, or not a JWKS
                log.warning("oauth.keys_unavailable", issuer=self.issuer, error=exc.__class__.__name__, detail=str(exc)[:200])
                return self._check_kept()
            self.keys, self.kids = keys, frozenset(k.kid for k in keys if k.kid)
            self.fetched_at = self.clock()
            log.info("oauth.keys_fetched", issuer=self.issuer, keys=len(keys.keys), kids=sorted(self.kids))

    def _check_kept(self) -> None:
        if self.keys is None:
            raise Unavailable(
                f"the signing keys of the authorization server {self.issuer} cannot be fetched right now "
                "(the server's log says why); try again shortly"
            )

    async def _fetch(self) -> KeySet:
        async with httpx2.AsyncClient(timeout=FETCH_TIMEOUT_SECONDS, follow_redirects=False) as client:
            url = self.jwks_url or await self._jwks_uri(client)
            response = await client.get(url, headers={"Accept": "application/json"})
            response.raise_for_status()
            return KeySet.import_key_set(response.json())

    async def _jwks_uri(self, client: httpx2.AsyncClient) -> str:
        for url in metadata_urls(self.issuer):
            response = await client.get(url, headers={"Accept": "application/json"})
            if response.status_code == 404:
                continue
            response.raise_for_status()
            metadata = response.json()
            # RFC 8414 §3.3: metadata that names another issuer must not be used.
            if not isinstance(metadata, dict) or metadata.get("issuer") != self.issuer:
                raise ValueError(f"the metadata at {url} does not name the issuer {self.issuer}")
            uri = metadata.get("jwks_uri")
            if not isinstance(uri, str) or not uri:
                raise ValueError(f"the metadata at {url} has no jwks_uri")
            return uri
        raise ValueError(f"no authorization server metadata at {' or '.join(metadata_urls(self.issuer))}")


def _unverified(token: str) -> tuple[dict[str, object], dict[str, object]]:
    """A compact JWS's header and claims, read without checking anything, only to choose the
    issuer's keys; InvalidToken when it is not one."""
    try:
        obj = jws.extract_compact(token.encode("ascii"))
        claims = json.loads(obj.payload or b"")
    except (JoseError, ValueError, UnicodeError):
        raise InvalidToken("it is neither a token this server issued nor a signed JWT") from None
    if not isinstance(claims, dict):
        raise InvalidToken("its payload is not a JSON object of claims")
    return obj.headers(), claims


class JwtVerifier:
    """Accepts the JWT access tokens of `config`'s issuers; `clients` maps an OAuth client id to
    the agent it acts as."""

    def __init__(self, config: OAuthConfig, clients: Mapping[str, str], clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clients = dict(clients)
        self._sources = {issuer: KeySource(issuer, config.jwks_url, config.refetch_seconds, clock) for issuer in config.issuers}

    @staticmethod
    def looks_like_jwt(token: str) -> bool:
        return token.count(".") == 2 and token.startswith("eyJ")

    async def prepare(self, token: str) -> None:
        """Makes sure the keys `token` needs are kept, fetching them when they are not (see
        `KeySource.ensure`); a token that names no trusted issuer fetches nothing."""
        try:
            header, claims = _unverified(token)
        except InvalidToken:
            return
        source = self._sources.get(claims.get("iss"))  # type: ignore[arg-type]
        if source is not None:
            kid = header.get("kid")
            await source.ensure(kid if isinstance(kid, str) else None)

    def verify(self, token: str) -> Verified:
        """The accepted token's agent and role, or InvalidToken saying why not. Uses the keys
        kept (`prepare` fetches them); never does I/O."""
        header, claims = _unverified(token)
        issuer = claims.get("iss")
        source = self._sources.get(issuer) if isinstance(issuer, str) else None
        if source is None:
            raise InvalidToken("it was not issued by an authorization server this server trusts (FACADE_OAUTH_ISSUERS)")
        if source.keys is None:
            raise InvalidToken(f"the signing keys of {source.issuer} have not been fetched")
        try:
            decoded = jwt.decode(token, source.keys, algorithms=list(ALGORITHMS))
        except InvalidKeyIdError:
            raise InvalidToken(f"it is signed with a key {source.issuer} does not publish") from None
        except BadSignatureError:
            raise InvalidToken(f"its signature does not verify with the keys of {source.issuer}") from None
        except UnsupportedAlgorithmError:
            raise InvalidToken(f"it is signed with an algorithm this server does not accept; accepted: {', '.join(ALGORITHMS)}") from None
        except (JoseError, ValueError, TypeError):  # a mangled signature or header can surface as either
            raise InvalidToken("it cannot be read as a signed JWT") from None
        self._check_claims(decoded.claims, source.issuer)
        client = self._client(decoded.claims)
        return Verified(agent=self.clients.get(client) if client else None, operator=self._is_operator(decoded.claims))

    def _check_claims(self, claims: dict[str, object], issuer: str) -> None:
        audience = self.config.audience
        registry = jwt.JWTClaimsRegistry(
            leeway=LEEWAY_SECONDS,
            iss={"essential": True, "value": issuer},
            aud={"essential": True, "value": audience},
            exp={"essential": True},
        )
        try:
            registry.validate(claims)
        except ExpiredTokenError:
            raise InvalidToken("it has expired; get a new one from the authorization server") from None
        except MissingClaimError as exc:
            raise InvalidToken(f"it lacks the claim(s) {exc.claim} a resource server needs (iss, aud, exp)") from None
        except InvalidClaimError as exc:
            if exc.claim == "aud":
                raise InvalidToken(f"it was issued for another resource; its audience must be {audience}") from None
            raise InvalidToken(f"its {exc.claim!r} claim is not acceptable ({exc.description})") from None

    def _client(self, claims: Mapping[str, object]) -> str | None:
        claim = self.config.agent_claim
        value = claims.get(claim)
        if value is None and claim in CLIENT_CLAIM_FALLBACK:
            value = claims.get(CLIENT_CLAIM_FALLBACK[claim])
        return value if isinstance(value, str) and value else None

    def _is_operator(self, claims: Mapping[str, object]) -> bool:
        wanted = self.config.operator_scope
        return bool(wanted) and wanted in scopes_of(claims)


def scopes_of(claims: Mapping[str, object]) -> set[str]:
    """The token's scopes: RFC 9068's space-separated `scope`, or a `scp` list as some issue."""
    scope = claims.get("scope", claims.get("scp"))
    if isinstance(scope, str):
        return set(scope.split())
    if isinstance(scope, list):
        return {s for s in scope if isinstance(s, str)}
    return set()

"""Who is calling, and in which conversation: the one place both are resolved (DESIGN "Identity").

Tokens are looked up by their SHA-256 digest, so no token is kept in a dict key, a log line or an
error message; a message names the token's source (header, argument), never its value. Beside the
static tokens, a JWT access token of a configured authorization server is its client's agent, or
the operator with the operator scope (facade/access/oauth.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from facade.catalogue.agents import DEV_TOKEN_PREFIX, Agent
from facade.errors import ConfigError, IdentityError, InvalidToken

if TYPE_CHECKING:
    from facade.access.oauth import JwtVerifier

PrincipalKind = Literal["agent", "runtime", "operator"]
DEV_RUNTIME_TOKEN = f"{DEV_TOKEN_PREFIX}runtime"
DEV_OPERATOR_TOKEN = f"{DEV_TOKEN_PREFIX}operator"
CONVERSATION_HEADER = "x-conversation-id"
CONVERSATION_META_KEY = "conversation_id"
# The conversation id rule, the one place it is written (DESIGN "Identity"). The characters are
# those of every id a client sends in practice — an MCP session id (hex, uuid), a host session
# id (`20261130-101010-a1b2c3`), a runtime's `agent:main:42`, an e-mail-like `user@host` — and
# none that means something elsewhere: `/` makes `DELETE /api/conversations/{id}` unreachable,
# the Redis sweeper separates its fields with `\x1f`, and no whitespace or control character
# reaches a log line. The bound keeps every key and audit row (200 characters) whole.
CONVERSATION_ID_MAX = 128
CONVERSATION_ID = re.compile(rf"[A-Za-z0-9._:@-]{{1,{CONVERSATION_ID_MAX}}}")
CONVERSATION_ID_RULE = f"1 to {CONVERSATION_ID_MAX} characters from A-Z a-z 0-9 . _ : @ -"


@dataclass(frozen=True, slots=True)
class Principal:
    """A known token's owner: an agent, a multi-agent runtime, or an operator."""

    kind: PrincipalKind
    agent: str | None = None


@dataclass(frozen=True, slots=True)
class Caller:
    """The agent a call acts for, and whether it came through a runtime's shared connection."""

    agent: str
    via_runtime: bool = False


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class TokenBook:
    """Every accepted token and its owner.

    Development tokens (`facade-dev-…`) are accepted only when the server listens on loopback;
    elsewhere an agent without its `token_env` set simply cannot connect. The anonymous agent
    (`FACADE_ANONYMOUS_AGENT`) is the same kind of loopback-only convenience: it lets a client
    that cannot send a header (the official conformance suite) be one agent.
    """

    def __init__(
        self,
        agents: Mapping[str, Agent],
        *,
        runtime_tokens: Iterable[str] = (),
        operator_token: str | None = None,
        on_loopback: bool,
        anonymous_agent: str | None = None,
        verifier: JwtVerifier | None = None,
    ) -> None:
        self.verifier = verifier
        self.anonymous_agent = _checked_anonymous(anonymous_agent or None, agents, on_loopback=on_loopback)
        self._owners: dict[bytes, Principal] = {}
        for agent in agents.values():
            if on_loopback or not agent.dev_token:
                self._owners[_digest(agent.token)] = Principal("agent", agent.name)
        runtime = list(runtime_tokens) or ([DEV_RUNTIME_TOKEN] if on_loopback else [])
        for token in runtime:
            self._owners[_digest(token)] = Principal("runtime")
        self.serves_runtimes = bool(runtime)  # whether anyone may list the whole catalogue
        operator = accepted_operator_token(operator_token, on_loopback=on_loopback)
        if operator:
            self._owners[_digest(operator)] = Principal("operator")

    def lookup(self, token: str | None, *, operator_first: bool = False) -> Principal | None:
        """The token's owner, or None. A JWT is checked with the keys already fetched
        (`authenticate` fetches them); `operator_first` (the operator API) makes a JWT with the
        operator scope the operator even when its client is also an agent's."""
        try:
            return self._owner(token, operator_first) if token else None
        except InvalidToken:
            return None

    async def authenticate(self, token: str, *, operator_first: bool = False) -> Principal:
        """The owner of a bearer token, fetching a JWT issuer's keys first when they are needed;
        IdentityError saying why a token is refused (Unavailable when the keys cannot be had)."""
        if self.verifier is not None and _digest(token) not in self._owners and self.verifier.looks_like_jwt(token):
            await self.verifier.prepare(token)
        try:
            principal = self._owner(token, operator_first)
        except InvalidToken as exc:
            raise IdentityError(f"the bearer token sent is not accepted here: {exc}") from None
        if principal is None:
            raise IdentityError("the bearer token sent is not accepted here")
        return principal

    def _owner(self, token: str, operator_first: bool) -> Principal | None:
        static = self._owners.get(_digest(token))
        if static is not None or self.verifier is None or not self.verifier.looks_like_jwt(token):
            return static
        verified = self.verifier.verify(token)
        if verified.operator and (operator_first or verified.agent is None):
            return Principal("operator")
        if verified.agent is not None:
            return Principal("agent", verified.agent)
        raise InvalidToken(
            f"its {self.verifier.config.agent_claim} is not in any agent's oauth_clients (agent.toml), "
            "so it acts as no agent here"
        )


def accepted_operator_token(configured: str | None, *, on_loopback: bool) -> str | None:
    """The operator token a server accepts: the configured one, else the development token while
    it listens on loopback, else none (the operator API and dashboard then admit no one)."""
    return configured or (DEV_OPERATOR_TOKEN if on_loopback else None)


def _checked_anonymous(name: str | None, agents: Mapping[str, Agent], *, on_loopback: bool) -> str | None:
    if name is None:
        return None
    if not on_loopback:
        raise ConfigError(
            f"the anonymous agent {name!r} (FACADE_ANONYMOUS_AGENT, --anonymous-agent) lets any request "
            "without a token act as that agent, so it works only while the server listens on loopback "
            "(FACADE_HOST=127.0.0.1, ::1 or localhost); unset it, or listen on loopback"
        )
    if name not in agents:
        raise ConfigError(
            f"the anonymous agent (FACADE_ANONYMOUS_AGENT, --anonymous-agent) is {name!r}, which is not an "
            f"agent here; agents: {', '.join(sorted(agents))}"
        )
    return name


def bearer_of(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header, or None when there is none."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def resolve_caller(book: TokenBook, *, bearer: str | None, injected: str | None) -> Caller:
    """The transport's bearer wins; an injected `auth_token` that disagrees with an agent's
    bearer is ignored. A runtime's bearer needs the agent's token injected into the call. With
    neither, the anonymous agent when one is set; an injected token that is wrong stays wrong."""
    if bearer is not None:
        principal = book.lookup(bearer)
        if principal is None:
            raise IdentityError("the Authorization bearer token is not known to this server; nothing was run")
        if principal.kind == "agent":
            assert principal.agent is not None
            return Caller(principal.agent)
        if principal.kind == "operator":
            raise IdentityError("the operator token cannot call tools; connect with an agent or runtime token")
        agent = book.lookup(injected)
        if agent is None or agent.kind != "agent" or agent.agent is None:
            raise IdentityError(
                "this connection presents a runtime token, so every call must carry the agent's own "
                "auth_token (the host-side identity hook injects it); it was "
                + ("missing" if not injected else "not a known agent token")
            )
        return Caller(agent.agent, via_runtime=True)
    if not injected and book.anonymous_agent is not None:
        return Caller(book.anonymous_agent)
    principal = book.lookup(injected)
    if principal is None or principal.kind != "agent" or principal.agent is None:
        raise IdentityError(
            "no agent token: send 'Authorization: Bearer <agent token>' or inject auth_token "
            "with the host-side hook; nothing was run"
        )
    return Caller(principal.agent)


def resolve_listing(book: TokenBook, bearer: str | None) -> Principal:
    """Who a `tools/list` is for: an agent (its view) or a runtime (the whole catalogue)."""
    if bearer is None and book.anonymous_agent is not None:
        return Principal("agent", book.anonymous_agent)
    principal = book.lookup(bearer)
    if principal is None or principal.kind == "operator":
        raise IdentityError(
            "tools/list needs 'Authorization: Bearer <token>' with an agent or runtime token"
            + ("" if bearer is None else "; the one sent is not accepted here")
        )
    return principal


def checked_conversation(value: str, source: str) -> str:
    """`value` when it is a usable conversation id, else an IdentityError that names where it
    came from (`source`) and what to change; the value itself is described, never echoed."""
    if CONVERSATION_ID.fullmatch(value):
        return value
    if len(value) > CONVERSATION_ID_MAX:
        problem = f"it is {len(value)} characters long"
    else:
        bad = next(c for c in value if not CONVERSATION_ID.fullmatch(c))
        problem = f"it contains {ascii(bad)}"
    raise IdentityError(
        f"the conversation id from {source} cannot be used: {problem}; a conversation id is "
        f"{CONVERSATION_ID_RULE} (a uuid or a hex session id fits); nothing was run"
    )


def resolve_conversation(
    *,
    injected: str | None,
    header: str | None,
    meta: Mapping[str, object] | None,
    session_id: str | None,
    via_runtime: bool = False,
) -> str | None:
    """The call's conversation (DESIGN "Identity"), checked by `checked_conversation`.

    For an agent's own connection it is the transport's — `X-Conversation-Id`, else `_meta`,
    else the MCP session id (stdio: the process's) — whenever the transport carries one: an
    injected `conversation_id` that disagrees is ignored, as a disagreeing `auth_token` is, so a
    model that writes another conversation's id cannot borrow that conversation's elevation. The
    injected argument counts only when the transport carries none. For a runtime token
    (`via_runtime`) the injected argument comes first: one connection carries many agents'
    conversations, and the identity hook writes the one each call belongs to.
    """
    from_meta = meta.get(CONVERSATION_META_KEY) if meta else None
    transport = [
        ("the X-Conversation-Id header", header),
        ("_meta.conversation_id", from_meta),
        ("the MCP session id", session_id),
    ]
    argument = [("the conversation_id argument", injected)]
    for source, candidate in (argument + transport) if via_runtime else (transport + argument):
        if isinstance(candidate, str) and candidate.strip():
            return checked_conversation(candidate.strip(), source)
    return None

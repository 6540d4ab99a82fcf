"""The service: settings → registry, agents, tokens, elevations, views, database, calls.

The MCP, web and CLI layers build one `Service` and call into it; the service never imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import structlog
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from facade.serving import migrate
from facade.catalogue.agents import Agent, load_agents
from facade.access.approvals import Approvals
from facade.access.audit import Audit
from facade.serving.calls import Calls
from facade.access.cards import CardStore, MemoryCards
from facade.access.changes import Changes
from facade.serving.database import kept_connections, make_engine, require_database, session_factory
from facade.serving.metrics import Metrics
from facade.serving.pauses import collector_paused
from facade.catalogue.discovery import discover
from facade.access.elevation import Elevations, MemoryElevations
from facade.access.identity import TokenBook
from facade.errors import ConfigError
from facade.catalogue.registry import Registry
from facade.catalogue.served import Served, ServedCatalogues
from facade.kit.domain_settings import use_server_context
from facade.settings import Settings, file_values
from facade.catalogue.trace import Trace
from facade.catalogue.views import Views

if TYPE_CHECKING:
    from facade.access.oauth import JwtVerifier

log = structlog.get_logger("facade.serving.service")
Transport = Literal["http", "stdio"]
# Cards in memory live in the process that made them. Over HTTP that process is the one the
# operator decides on; a `facade stdio` process has no API and no dashboard, so a card it kept
# could never be decided (measured before this rule: `GET /api/cards` on `facade serve` showed []).
STDIO_PRIVATE_CARDS = (
    "needs an operator's approval, and this `facade stdio` process keeps approval cards in its own memory, "
    "where no operator can reach them; nothing was held or run. Set FACADE_REDIS_URL (the same Redis as "
    "`facade serve`) so that an operator decides the card on the dashboard, the API or `facade cards`"
)


@dataclass
class Service:
    settings: Settings
    registry: Registry
    agents: dict[str, Agent]
    elevations: Elevations
    views: Views
    token_book: TokenBook
    engine: Engine
    sessions: sessionmaker[Session]
    calls: Calls
    served: ServedCatalogues
    trace: Trace
    approvals: Approvals
    changes: Changes
    audit: Audit
    metrics: Metrics

    def runtime_list(self) -> Served:
        """What a runtime's `tools/list` serves: the whole catalogue (it filters on its side)."""
        return self.served.serve(self.registry)

    def close(self) -> None:
        """Close the database connections: those the calls keep, then the pool's. The service
        may serve again after (each is opened anew when first needed)."""
        if self.calls.sessions is not None:
            self.calls.sessions.close()
        self.engine.dispose()


def build_service(settings: Settings | None = None, *, transport: Transport = "http") -> Service:
    """Everything a server needs; raises ConfigError (with the offender named) on bad config.

    `transport` is how the server will be reached: a `stdio` one without Redis refuses
    approval-2 calls (STDIO_PRIVATE_CARDS) rather than hold cards no operator can see."""
    with collector_paused():
        return _build_service(settings or Settings(), transport)


def _build_service(settings: Settings, transport: Transport) -> Service:
    # Before discovery: a domain's settings read at import or seeding follow this server's.
    use_server_context(settings.data_dir, file_values(settings.config))
    registry = discover(settings.extra_domain_modules)
    agents = load_agents(settings.agents_dir, registry)
    metrics = Metrics()
    elevations, cards, changes = _backends(settings, metrics)
    metrics.watch_stores(cards, elevations)
    served = ServedCatalogues(registry, cache=settings.data_dir / "cache")
    views = Views(registry, agents, elevations, served)
    tokens = TokenBook(
        agents,
        runtime_tokens=settings.runtime_token_list,
        operator_token=settings.operator_token,
        on_loopback=settings.on_loopback,
        anonymous_agent=settings.anonymous_agent,
        verifier=jwt_verifier(settings, agents),
    )
    if tokens.anonymous_agent is not None:
        log.warning("identity.anonymous_agent", agent=tokens.anonymous_agent, hint="requests without a token act as this agent")
    if not settings.on_loopback:
        for agent in agents.values():
            if agent.dev_token:
                log.warning("agent.no_token", agent=agent.name, hint=f"set {agent.token_env or 'token_env'}")
    engine = make_engine(settings.effective_database_url, settings.database_pool_size)
    metrics.watch_database(engine)
    kept = kept_connections(engine)  # a SQLite file's calls keep a connection per thread
    if kept is not None:
        metrics.watch_database(kept)
    sessions = session_factory(engine)
    audit = Audit(sessions)
    calls = Calls(
        views,
        tokens,
        sessions,
        cards,
        audit,
        metrics=metrics,
        changes=changes,
        elevation_ttl=settings.elevation_ttl_seconds,
        card_ttl=settings.card_ttl_seconds,
        max_pending_cards=settings.max_pending_cards,
        call_deadline=settings.call_deadline_seconds,
        hold_refusal=STDIO_PRIVATE_CARDS if transport == "stdio" and not settings.redis_url else None,
        connect=kept.connect if kept is not None else None,
    )
    return Service(
        settings,
        registry,
        agents,
        elevations,
        views,
        tokens,
        engine,
        sessions,
        calls,
        served,
        Trace(settings.effective_trace_path, full=settings.trace_full, max_bytes=settings.trace_max_bytes, keep=settings.trace_keep),
        calls.approvals,
        changes,
        audit,
        metrics,
    )


def jwt_verifier(settings: Settings, agents: dict[str, Agent]) -> JwtVerifier | None:
    """The verifier of the configured authorization servers' tokens; None while none is set."""
    issuers = settings.oauth_issuer_list
    if not issuers:
        return None
    from facade.access.oauth import JwtVerifier, OAuthConfig  # joserfc and httpx2 only when configured

    audience = settings.oauth_audience or settings.resource_url
    if not audience:
        raise ConfigError(
            "FACADE_OAUTH_ISSUERS is set, so every token must be bound to this server's URL, and listening on "
            f"{settings.host} names none: set FACADE_PUBLIC_URL to the URL clients reach (e.g. "
            "https://mcp.example.com), or FACADE_OAUTH_AUDIENCE to the audience your authorization server issues"
        )
    config = OAuthConfig(
        issuers=tuple(issuers),
        audience=audience,
        jwks_url=settings.oauth_jwks_url or None,
        agent_claim=settings.oauth_agent_claim,
        operator_scope=settings.oauth_operator_scope or None,
        refetch_seconds=settings.oauth_refetch_seconds,
    )
    clients = {client: agent.name for agent in agents.values() for client in agent.oauth_clients}
    log.info("oauth.enabled", issuers=issuers, audience=audience, clients=len(clients))
    return JwtVerifier(config, clients)


def _backends(settings: Settings, metrics: Metrics) -> tuple[Elevations, CardStore, Changes]:
    """In memory by default; in Redis when FACADE_REDIS_URL is set, so replicas agree."""
    if settings.redis_url:
        from facade.access.redis_store import redis_backends

        return redis_backends(settings.redis_url, metrics.redis_failed)
    return MemoryElevations(), MemoryCards(), Changes()


def require_services(service: Service) -> None:
    """The database and, when configured, Redis answer; else a StartupError of one line."""
    require_database(service.engine)
    if service.settings.redis_url:
        from facade.access.redis_store import require_redis

        require_redis(service.settings.redis_url)


def prepare_database(service: Service) -> None:
    """Apply every domain's migrations, then seed the demo data where it is missing when the
    settings ask for it (`--demo`, FACADE_SEED); one replica at a time, so that replicas
    started together neither race nor die."""
    _migrate(service.engine, service.sessions, service.registry, service.settings.seed)


def upgrade_database(settings: Settings) -> Engine:
    """Apply every domain's migrations, and nothing else: migrations need no agents folder."""
    registry = discover(settings.extra_domain_modules)
    engine = make_engine(settings.effective_database_url, settings.database_pool_size)
    _migrate(engine, session_factory(engine), registry, seed=False)
    return engine


def _migrate(engine: Engine, sessions: sessionmaker[Session], registry: Registry, seed: bool) -> None:
    # The tables, the DDL and the seed rows are built on top of the service's heap.
    with collector_paused():
        require_database(engine)
        _prepare(engine, sessions, registry, seed)


def _prepare(engine: Engine, sessions: sessionmaker[Session], registry: Registry, seed: bool) -> None:
    with migrate.exclusive(engine):
        migrate.upgrade(engine, registry)
        if seed:
            for domain in registry.domains.values():
                if domain.seed is not None:
                    with sessions.begin() as session:
                        domain.seed(session)  # each writes only into its empty tables

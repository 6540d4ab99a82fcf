"""The core: settings → registry, agents, tokens, elevations, views, database, calls.

The MCP, web and CLI layers build one `Core` and call into it; the core never imports them.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from facade import migrate
from facade.agents import Agent, load_agents
from facade.approvals import Approvals
from facade.audit import Audit
from facade.calls import Calls
from facade.cards import CardStore, MemoryCards
from facade.changes import Changes
from facade.db import make_engine, session_factory
from facade.discovery import discover
from facade.elevation import Elevations, MemoryElevations
from facade.identity import TokenBook
from facade.registry import Registry
from facade.served import ServedCatalogues
from facade.settings import Settings
from facade.trace import Trace
from facade.views import Views

log = structlog.get_logger("facade.core")


@dataclass
class Core:
    settings: Settings
    registry: Registry
    agents: dict[str, Agent]
    elevations: Elevations
    views: Views
    tokens: TokenBook
    engine: Engine
    sessions: sessionmaker[Session]
    calls: Calls
    served: ServedCatalogues
    trace: Trace
    approvals: Approvals
    changes: Changes
    audit: Audit


def build_core(settings: Settings | None = None) -> Core:
    """Everything a server needs; raises ConfigError (with the offender named) on bad config."""
    settings = settings or Settings()
    registry = discover(settings.extra_domain_modules)
    agents = load_agents(settings.agents_dir, registry)
    elevations, cards, changes = _backends(settings)
    views = Views(registry, agents, elevations)
    tokens = TokenBook(
        agents,
        runtime_tokens=settings.runtime_token_list,
        operator_token=settings.operator_token,
        on_loopback=settings.on_loopback,
        anonymous_agent=settings.anonymous_agent,
    )
    if tokens.anonymous_agent is not None:
        log.warning("identity.anonymous_agent", agent=tokens.anonymous_agent, hint="requests without a token act as this agent")
    if not settings.on_loopback:
        for agent in agents.values():
            if agent.dev_token:
                log.warning("agent.no_token", agent=agent.name, hint=f"set {agent.token_env or 'token_env'}")
    engine = make_engine(settings.effective_database_url)
    sessions = session_factory(engine)
    audit = Audit(sessions)
    approvals = Approvals(cards, audit, card_ttl=settings.card_ttl_seconds)
    calls = Calls(views, tokens, sessions, approvals, changes, settings.elevation_ttl_seconds)
    return Core(
        settings,
        registry,
        agents,
        elevations,
        views,
        tokens,
        engine,
        sessions,
        calls,
        ServedCatalogues(registry),
        Trace(settings.effective_trace_path, full=settings.trace_full),
        approvals,
        changes,
        audit,
    )


def _backends(settings: Settings) -> tuple[Elevations, CardStore, Changes]:
    """In memory by default; in Redis when FACADE_REDIS_URL is set, so replicas agree."""
    if settings.redis_url:
        from facade.redisbackend import redis_backends

        return redis_backends(settings.redis_url)
    return MemoryElevations(), MemoryCards(), Changes()


def prepare_database(core: Core, *, seed: bool | None = None) -> None:
    """Apply every domain's migrations, then (by default) seed the demo data where it is missing."""
    migrate.upgrade(core.engine, core.registry)
    if core.settings.seed if seed is None else seed:
        for domain in core.registry.domains.values():
            if domain.seed is not None:
                with core.sessions.begin() as session:
                    domain.seed(session)

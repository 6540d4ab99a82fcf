"""A small, believable inventory with a day of probe history; written only into an empty hosts
table, always the same rows in the same order, so ids are 1..N on a fresh database (capability
examples rely on them).

Only `localhost` is real; the other hosts sit in the documentation ranges (RFC 5737), which are
never routed, and their history is made up here — nothing is probed while seeding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.hosts.tables import Host, HostTag, Probe

T0 = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)

# name, address, role, tags, ssh port, notes
HOSTS = [
    ("localhost", "127.0.0.1", "monitoring", ["local"], 22, "The machine this server runs on."),
    ("web-01", "203.0.113.10", "web", ["prod", "eu-west"], 22, "nginx in front of the shop application."),
    ("web-02", "203.0.113.11", "web", ["prod", "eu-west"], 22, "Second shop node behind the load balancer."),
    ("db-01", "203.0.113.20", "database", ["prod", "postgres"], 2222, "PostgreSQL 16 primary; SSH on 2222."),
    ("cache-01", "203.0.113.30", "cache", ["prod"], 22, "Redis for sessions and the page cache."),
    ("ci-runner-01", "198.51.100.7", "worker", ["ci"], 22, "Build runner; rebuilt every Monday."),
    (
        "bastion-old",
        "203.0.113.99",
        "proxy",
        ["decommissioned"],
        22,
        "Replaced by the VPN gateway; delete after the audit.",
    ),
]

# host (1-based), kind, port, reachable, latency ms, status, error — every four hours from T0
PROBES = [
    (2, "http", 443, True, 41.7, 200, None),
    (3, "http", 443, True, 44.1, 200, None),
    (4, "tcp", 5432, True, 1.9, None, None),
    (5, "tcp", 6379, True, 0.8, None, None),
    (2, "http", 443, True, 39.5, 200, None),
    (3, "http", 443, False, None, None, "timed out after 3s"),
    (4, "tcp", 5432, False, None, None, "connection refused"),
    (5, "tcp", 6379, True, 0.9, None, None),
    (2, "http", 443, True, 40.2, 200, None),
    (3, "http", 443, True, 47.8, 502, None),
    (4, "tcp", 5432, True, 2.3, None, None),
    (6, "tcp", 22, True, 12.6, None, None),
    (7, "tcp", 22, False, None, None, "timed out after 2s"),
]


def seed(session: Session) -> None:
    """Insert the demo inventory unless the hosts table already has rows."""
    if session.scalar(select(Host.id).limit(1)) is not None:
        return
    hosts = []
    for i, (name, address, role, tags, ssh_port, notes) in enumerate(HOSTS):
        at = T0 - timedelta(days=30) + timedelta(hours=i)
        host = Host(name=name, address=address, role=role, ssh_port=ssh_port, notes=notes, created_at=at, updated_at=at)
        host.tags = [HostTag(tag=t) for t in tags]
        hosts.append(host)
    # Flushed one by one, in list order, so that ids follow the list above.
    for host in hosts:
        session.add(host)
        session.flush()
    for i, (index, kind, port, reachable, latency, status, error) in enumerate(PROBES):
        host = hosts[index - 1]
        target = f"https://{host.name}.example.com/" if kind == "http" else host.address
        session.add(
            Probe(
                host_id=host.id,
                kind=kind,
                target=target,
                port=port,
                reachable=reachable,
                status_code=status,
                latency_ms=latency,
                error=error,
                probed_at=T0 + timedelta(hours=4 * (i // 4), minutes=i % 4),
            )
        )
        session.flush()

"""A small, believable set of zones; written only into an empty zone table, always the same rows
in the same order, so ids are 1..N on a fresh database (capability examples rely on them).

example.com uses the documentation addresses (RFC 5737, RFC 3849); `localhost` is the zone
every BIND install ships (db.local), and the only one whose names the examples resolve."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.dns.tables import Record, Zone

T0 = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)

# serial, ttl, primary ns, admin, refresh, retry, expire, minimum: the shop's nameserver serves
# its forward and reverse zones with the same SOA.
SHOP_SOA = (2026090101, 3600, "ns1.example.com", "hostmaster@example.com", 7200, 3600, 1209600, 300)
BIND_LOCALHOST_SOA = (2, 604800, "localhost", "root@localhost", 604800, 86400, 2419200, 604800)

# name, *SOA, notes
ZONES: list[tuple[Any, ...]] = [
    ("example.com", *SHOP_SOA, "The shop's public zone."),
    ("localhost", *BIND_LOCALHOST_SOA, "Loopback names, as BIND ships them."),
    ("113.0.203.in-addr.arpa", *SHOP_SOA, "Reverse zone of 203.0.113.0/24."),
    # The retired brand's zone, left for dns.zone_delete's example alone.
    ("oldbrand.example", *SHOP_SOA, "The old brand's zone, retired since the rename."),
]

# zone (1-based), name, type, value, ttl, priority, weight, port
RECORDS: list[tuple[Any, ...]] = [
    (1, "@", "NS", "ns1.example.com", None, None, None, None),
    (1, "@", "NS", "ns2.example.com", None, None, None, None),
    (1, "@", "A", "203.0.113.10", None, None, None, None),
    (1, "@", "AAAA", "2001:db8::10", None, None, None, None),
    (1, "www", "CNAME", "example.com", None, None, None, None),
    (1, "ns1", "A", "203.0.113.2", None, None, None, None),
    (1, "ns2", "A", "203.0.113.3", None, None, None, None),
    (1, "mail", "A", "203.0.113.25", None, None, None, None),
    (1, "@", "MX", "mail.example.com", None, 10, None, None),
    # The backup MX whose host was never set up: what dns.zone_validate exists to catch.
    (1, "@", "MX", "mail2.example.com", None, 20, None, None),
    (1, "@", "TXT", "v=spf1 mx -all", None, None, None, None),
    (1, "_dmarc", "TXT", "v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com", None, None, None, None),
    (1, "_sip._tcp", "SRV", "sip.example.com", None, 10, 60, 5060),
    (1, "sip", "A", "203.0.113.40", 300, None, None, None),
    # The retired FTP alias, left for dns.record_delete's example.
    (1, "ftp", "CNAME", "www.example.com", None, None, None, None),
    (2, "@", "NS", "localhost", None, None, None, None),
    (2, "@", "A", "127.0.0.1", None, None, None, None),
    (2, "@", "AAAA", "::1", None, None, None, None),
    (3, "@", "NS", "ns1.example.com", None, None, None, None),
    (3, "@", "NS", "ns2.example.com", None, None, None, None),
    (3, "10", "PTR", "example.com", None, None, None, None),
    (3, "2", "PTR", "ns1.example.com", None, None, None, None),
    (4, "@", "NS", "ns1.example.com", None, None, None, None),
    (4, "@", "A", "203.0.113.90", None, None, None, None),
    (4, "www", "CNAME", "oldbrand.example", None, None, None, None),
]


def seed(session: Session) -> None:
    """Insert the demo zones unless the zone table already has rows."""
    if session.scalar(select(Zone.id).limit(1)) is not None:
        return
    zones = []
    for i, (name, serial, ttl, ns, admin, refresh, retry, expire, minimum, notes) in enumerate(ZONES):
        at = T0 + timedelta(hours=i)
        zones.append(
            Zone(
                name=name,
                serial=serial,
                ttl=ttl,
                primary_ns=ns,
                admin_email=admin,
                refresh=refresh,
                retry=retry,
                expire=expire,
                minimum=minimum,
                notes=notes,
                created_at=at,
                updated_at=at,
            )
        )
    # Flushed one by one, in list order, so that ids follow the lists above.
    for zone in zones:
        session.add(zone)
        session.flush()
    for i, (zone, name, kind, value, ttl, priority, weight, port) in enumerate(RECORDS):
        at = T0 + timedelta(hours=len(ZONES), minutes=i)
        session.add(
            Record(
                zone=zones[zone - 1],
                name=name,
                type=kind,
                value=value,
                ttl=ttl,
                priority=priority,
                weight=weight,
                port=port,
                created_at=at,
                updated_at=at,
            )
        )
        session.flush()

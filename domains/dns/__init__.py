"""Managed DNS zones and records, zone files in and out, and the system resolver's view.

Seeded ids: zones 1-4 (1 example.com, 2 localhost, 3 the reverse zone 113.0.203.in-addr.arpa,
4 oldbrand.example, which only the zone_delete example touches), records 1-25 (15 is the
retired ftp alias the record_delete example removes; 23-25 are zone 4's); ids are never
reused. Every example succeeds on a freshly seeded database whichever examples ran before
it. Examples resolve only `localhost` (the localhost zone, 2). No capability needs a backend
this machine lacks: a name the system resolver cannot resolve is an answer, returned as data.
"""

from pathlib import Path

from domains.dns import deletion, history, records, resolver, reverse, transfer, validation, zones
from domains.dns.seed import seed
from facade.kit import Domain

domain = Domain(
    "dns",
    description="DNS zones and records, zone files, and the system resolver.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(
        zones.tools,
        records.tools,
        validation.tools,
        transfer.tools,
        reverse.tools,
        resolver.tools,
        history.tools,
        deletion.tools,
    ),
)

__all__ = ["domain"]

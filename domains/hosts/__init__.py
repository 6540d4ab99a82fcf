"""A host inventory, probes of the real network, and facts about the local machine.

Seeded ids: hosts 1-7 (1 is `localhost` at 127.0.0.1, the only host examples probe; 7 is the
decommissioned bastion only the delete example touches), probes 1-13; ids are never reused.
Every example succeeds on a freshly seeded database whichever examples ran before it, and
none needs a backend this machine lacks: a probe that reaches nothing (no server on the port,
no network) succeeds and says so in its result.
"""

from pathlib import Path

from domains.hosts import inventory, machine, probes, reports
from domains.hosts.seed import seed
from facade.kit import Domain

domain = Domain(
    "hosts",
    description="A host inventory, network probes and facts about the local machine.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    # Core first (the inventory, probes, the machine's status), then the full tier, the
    # delete last: the listing order, which no example relies on.
    toolsets=(
        inventory.tools,
        probes.tools,
        machine.tools,
        probes.full_tools,
        machine.full_tools,
        reports.tools,
        inventory.deletes,
    ),
)

__all__ = ["domain"]

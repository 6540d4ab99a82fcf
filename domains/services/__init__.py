"""Services this machine runs: definitions in the database, processes, ports and health probes.

Every example succeeds on a freshly seeded database and sandbox whichever examples ran before it
(none needs a backend this machine lacks). Seeded ids: services 1 static-site (a loopback web
server on port 8701, never started by an example, so that its port cannot clash), 2 heartbeat
(`sleep 300`: the examples start, restart and stop it, each idempotent; in registration order
the stop comes last and nothing is left running), 3 legacy-cron (disabled, only the delete
example touches it). The machine-wide views (processes, ports) are listed last.
"""

from pathlib import Path

from domains.services import control, definitions, machine, transfer
from domains.services.seed import seed
from domains.services.settings import ServicesSettings
from facade.kit import Domain

domain = Domain(
    "services",
    description="Services on this machine: definitions, processes, ports and health.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(definitions.tools, control.tools, transfer.tools, definitions.deletes, machine.tools),
    settings=ServicesSettings,
)

__all__ = ["domain"]

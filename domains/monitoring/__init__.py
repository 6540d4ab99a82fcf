"""Checks of this machine and its services, with alerts, silences and metric samples.

Every example succeeds on a freshly seeded database whichever examples ran before it (none
needs a backend this machine lacks: probes report an unreachable target as a critical result).
Examples probe only 127.0.0.1 and local state. Seeded ids: checks 1-7 (6 is disabled, the only
one naming a fictional host, and only the delete example touches it); results 1-144
(1 September 2026, hourly); alerts 1-3 (1 open critical on check 7, 2 closed on check 2, 3 open
warn on check 3); silence 1 (expired, which the delete example removes); samples 1-24.
"""

from pathlib import Path

from domains.monitoring import alerts, bulk, checks, metrics, reports
from domains.monitoring.seed import seed
from domains.monitoring.settings import MonitoringSettings
from facade.kit import Domain

domain = Domain(
    "monitoring",
    description="Checks of this machine and its services, alerts, silences and metric samples.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(checks.tools, alerts.tools, metrics.tools, checks.deletes, reports.tools, bulk.tools),
    settings=MonitoringSettings,
)

__all__ = ["domain"]

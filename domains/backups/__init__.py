"""Backup jobs over folders of a sandbox: real .tar.gz archives with manifests, verify, restore.

Seeded ids: jobs 1-3 (1 documents, 2 photos, 3 server-config, disabled); runs 1-4 (1 and 2 of
job 1, the documents before and after they changed; 3 and 4 of job 2). Every example succeeds
on a freshly seeded database and sandbox whichever examples ran before it (none needs a
backend this machine lacks): each change targets a record no other example reads — job 1's
runs are read, restored and compared; job 2's oldest run is deleted and its retention pruned;
job 3 is deleted. Ids are never reused.
"""

from pathlib import Path

from domains.backups import jobs, reports, retention, runs
from domains.backups.seed import seed
from domains.backups.settings import BackupsSettings
from facade.kit import Domain

domain = Domain(
    "backups",
    description="Backup jobs of sandboxed folders: real .tar.gz archives, verify, restore, retention.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(jobs.tools, runs.tools, reports.tools, retention.tools),
    settings=BackupsSettings,
)

__all__ = ["domain"]

"""The domain's entities as data, for lookups and the data-driven get/list/update."""

from __future__ import annotations

from domains.backups import serialize
from domains.backups.tables import Job, Run
from facade.kit import Entity

JOB: Entity[Job] = Entity("backups", "job", "jobs", Job, render=serialize.job)
RUN: Entity[Run] = Entity("backups", "run", "runs", Run, render=serialize.run)

"""The arguments of every backups capability. Field names say what they hold; a description is
given only where the name alone does not."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, Field

from domains.backups import schedule
from domains.backups.tables import RunStatus
from facade.kit import Id, Input, Page

Name = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$")]
SandboxPath = Annotated[str, Field(min_length=1, max_length=500)]
Glob = Annotated[str, Field(min_length=1, max_length=200)]
Schedule = Annotated[
    str,
    Field(min_length=1, max_length=100, description="Cron 'minute hour day month weekday' in UTC, e.g. '0 2 * * *'."),
    AfterValidator(schedule.check),
]
Source = Annotated[SandboxPath, Field(description="Folder to back up, in the sandbox, e.g. 'sources/documents'.")]
Include = Annotated[
    list[Glob],
    Field(min_length=1, max_length=50, description="Globs of files to pack: a name ('*.pdf') or path ('invoices/*')."),
]
Exclude = Annotated[list[Glob], Field(max_length=50, description="Globs of files to leave out, as for include.")]
Retention = Annotated[int, Field(ge=1, le=1000, description="How many succeeded runs job_prune keeps.")]
Description = Annotated[str, Field(max_length=2000)]


class JobCreate(Input):
    name: Name
    source: Source
    schedule: Schedule
    retention_count: Retention = 7
    include: Include = ["*"]
    exclude: Exclude = []
    enabled: bool = True
    description: Description = ""


class JobUpdate(Input):
    job_id: Id
    name: Name | None = None
    source: Source | None = None
    schedule: Schedule | None = None
    retention_count: Retention | None = None
    include: Include | None = None
    exclude: Exclude | None = None
    enabled: bool | None = None
    description: Description | None = None


class JobFilter(Page):
    enabled: bool | None = None


class JobRef(Input):
    job_id: Id


class JobDelete(Input):
    job_id: Id
    delete_archives: bool = Field(default=False, description="Required when the job has archives; deletes them too.")


class JobNextRuns(Input):
    job_id: Id
    count: int = Field(default=5, ge=1, le=50)


class JobPrune(Input):
    job_id: Id | None = Field(default=None, description="Omit to prune every job.")
    dry_run: bool = False


class RunFilter(Page):
    job_id: Id | None = None
    status: RunStatus | None = None


class RunRef(Input):
    run_id: Id


class RunDelete(Input):
    run_id: Id
    force: bool = Field(default=False, description="Needed to delete a job's newest succeeded run.")


class RunRestore(Input):
    run_id: Id
    target: SandboxPath | None = Field(default=None, description="Folder to restore into; default 'restores/run-<id>'.")
    paths: list[SandboxPath] | None = Field(
        default=None, min_length=1, max_length=500, description="Files or folders of the archive; omit for all."
    )
    overwrite: bool = False


class RunDiff(Input):
    from_run_id: Id
    to_run_id: Id


class ManifestDump(Page):
    run_id: Id
    limit: int = Field(default=200, ge=1, le=1000)


class SchedulePreview(Input):
    schedule: Schedule
    count: int = Field(default=10, ge=1, le=100)
    after: AwareDatetime | None = Field(default=None, description="Start from this time; default now.")


class StorageStats(Input):
    pass


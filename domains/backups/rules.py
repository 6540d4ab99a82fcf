"""The backups domain's rules: job names are unique, a job backs up an existing folder of the
sandbox outside the archives, retention keeps a job's newest good runs, and the newest good run
of a job is not deleted by accident."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.backups import packing, sandbox
from domains.backups.tables import Job, Run
from facade.kit import Conflict


def name_free(db: Session, name: str, except_id: int | None = None) -> None:
    # Case-insensitive, so that "Documents" and "documents" cannot both exist to confuse a reader.
    clash = db.scalar(select(Job.id).where(func.lower(Job.name) == name.lower(), Job.id != except_id))
    if clash is not None:
        raise Conflict(f"job {clash} is already named {name!r}; choose another name or update job {clash}")


def normal_source(given: str) -> str:
    """The source as stored: checked to be a folder, written relative to the root."""
    return sandbox.display(packing.source_folder(given))


def check_create(db: Session, values: dict[str, Any]) -> None:
    name_free(db, values["name"])
    values["source"] = normal_source(values["source"])


def check_update(db: Session, job: Job, changes: dict[str, Any]) -> None:
    if "name" in changes:
        name_free(db, changes["name"], job.id)
    if changes.get("source") is not None:
        changes["source"] = normal_source(changes["source"])


def newest_first(job: Job) -> list[Run]:
    return sorted(job.runs, key=lambda r: (r.started_at, r.id), reverse=True)


def prunable(job: Job) -> list[Run]:
    """The runs retention lets go: everything older than the job's newest `retention_count`
    succeeded runs. Newer failed runs stay, as the recent history of what went wrong."""
    ordered = newest_first(job)
    good = [r for r in ordered if r.status == "succeeded"]
    if len(good) <= job.retention_count:
        return []
    oldest_kept = good[job.retention_count - 1]
    cut = ordered.index(oldest_kept)
    return list(reversed(ordered[cut + 1 :]))


def check_run_delete(run: Run, force: bool) -> None:
    """A job's newest good backup is the one a restore needs most: deleting it needs force."""
    if force or run.status != "succeeded":
        return
    newest = next((r for r in newest_first(run.job) if r.status == "succeeded"), None)
    if newest is not None and newest.id == run.id:
        raise Conflict(
            f"run {run.id} is the newest good backup of job {run.job_id}; pass force=true to delete it anyway, "
            "or delete an older run"
        )

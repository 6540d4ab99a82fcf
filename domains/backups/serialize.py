"""Records as JSON-friendly dicts: ids, plain strings, ISO timestamps."""

from __future__ import annotations

from typing import Any

from domains.backups import schedule
from domains.backups.tables import Job, Run
from facade.kit import iso


def job(j: Job) -> dict[str, Any]:
    return {
        "id": j.id,
        "name": j.name,
        "description": j.description,
        "source": j.source,
        "schedule": j.schedule,
        "next_run_at": iso(schedule.next_time(j.schedule)) if j.enabled else None,
        "retention_count": j.retention_count,
        "include": list(j.include),
        "exclude": list(j.exclude),
        "enabled": j.enabled,
        "created_at": iso(j.created_at),
        "updated_at": iso(j.updated_at),
    }


def run(r: Run) -> dict[str, Any]:
    return {
        "id": r.id,
        "job_id": r.job_id,
        "status": r.status,
        "started_at": iso(r.started_at),
        "finished_at": iso(r.finished_at),
        "archive": r.archive,
        "archive_bytes": r.archive_bytes,
        "archive_sha256": r.archive_sha256,
        "file_count": r.file_count,
        "source_bytes": r.source_bytes,
        "skipped_links": r.skipped_links,
        "error": r.error,
    }

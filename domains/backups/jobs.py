"""Backup jobs: what folder to back up, when, and how many runs to keep; running one now."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from domains.backups import inputs, packing, rules, schedule, serialize
from domains.backups.entities import JOB
from domains.backups.tables import Run
from facade.kit import CallContext, Toolset, records

Result = dict[str, Any]
tools = Toolset()

records.add_create(
    tools,
    JOB,
    inputs.JobCreate,
    description="Create a backup job for a folder of the sandbox.",
    check=rules.check_create,
    example={
        "name": "invoices",
        "source": "sources/documents/invoices",
        "schedule": "0 * * * *",
        "retention_count": 24,
        "include": ["INV-*.txt"],
        "description": "Invoices, hourly.",
    },
)


@tools.capability("job_get", read_only=True, example={"job_id": 1})
def job_get(ctx: CallContext, args: inputs.JobRef) -> Result:
    """Get one backup job with its latest runs."""
    job = JOB.fetch(ctx.db, args.job_id)
    latest = ctx.db.scalars(
        select(Run).where(Run.job_id == job.id).order_by(Run.started_at.desc(), Run.id.desc()).limit(3)
    )
    total = ctx.db.scalar(select(func.count()).where(Run.job_id == job.id))
    return {"job": serialize.job(job), "latest_runs": [serialize.run(r) for r in latest], "runs_total": total}


records.add_list(tools, JOB, inputs.JobFilter, description="List backup jobs.")
records.add_update(tools, JOB, inputs.JobUpdate, check=rules.check_update, example={"job_id": 1, "retention_count": 2})


# Named like a report, but an agent asks "when does it run next" of most jobs it touches.
@tools.capability("job_next_runs", tier="core", read_only=True, example={"job_id": 2, "count": 4})
def job_next_runs(ctx: CallContext, args: inputs.JobNextRuns) -> Result:
    """List the next times a job's schedule fires, in UTC."""
    job = JOB.fetch(ctx.db, args.job_id)
    times = schedule.next_times(job.schedule, args.count)
    return {
        "job_id": job.id,
        "schedule": job.schedule,
        "enabled": job.enabled,
        "next_runs": [t.isoformat() for t in times],
        **({} if job.enabled else {"note": "the job is disabled; enable it with backups.job_update to run on it"}),
    }


# Running a job is what a backup domain is for; the name merely lacks a CRUD verb.
@tools.capability("job_run", tier="core", example={"job_id": 1})
def job_run(ctx: CallContext, args: inputs.JobRef) -> Result:
    """Back up a job's folder now into a new .tar.gz archive with a manifest."""
    job = JOB.fetch(ctx.db, args.job_id)
    run = packing.run_job(ctx.db, job)
    over = len(rules.prunable(job))
    result: Result = {"run": serialize.run(run)}
    if over:
        result["note"] = f"job {job.id} keeps {job.retention_count} runs and has {over} more; see backups.job_prune"
    return result

"""The backups domain and its capabilities, in registration order.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and sandbox and must succeed (none needs a backend this machine lacks), so a delete
comes after the reads of what it deletes. Seeded ids: jobs 1-3 (1 documents, 2 photos,
3 server-config, disabled); runs 1-4 (1 and 2 of job 1, the documents before and after they
changed; 3 and 4 of job 2). The examples create job 4 and run 5; ids are never reused.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from domains.backups import inputs, reports, restore, rules, runs, schedule, serialize
from domains.backups.entities import JOB, RUN
from domains.backups.seed import seed
from domains.backups.tables import Job, Run
from facade.kit import CallContext, Conflict, Domain, records

Result = dict[str, Any]

domain = Domain(
    "backups",
    description="Backup jobs of sandboxed folders: real .tar.gz archives, verify, restore, retention.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# Jobs

records.add_create(
    domain,
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


@domain.capability("job_get", read_only=True, example={"job_id": 1})
def job_get(ctx: CallContext, args: inputs.JobRef) -> Result:
    """Get one backup job with its latest runs."""
    job = JOB.fetch(ctx.db, args.job_id)
    latest = ctx.db.scalars(
        select(Run).where(Run.job_id == job.id).order_by(Run.started_at.desc(), Run.id.desc()).limit(3)
    )
    total = ctx.db.scalar(select(func.count()).where(Run.job_id == job.id))
    return {"job": serialize.job(job), "latest_runs": [serialize.run(r) for r in latest], "runs_total": total}


records.add_list(domain, JOB, inputs.JobFilter, description="List backup jobs.")
records.add_update(domain, JOB, inputs.JobUpdate, check=rules.check_update, example={"job_id": 1, "retention_count": 2})


# Named like a report, but an agent asks "when does it run next" of most jobs it touches.
@domain.capability("job_next_runs", tier="core", read_only=True, example={"job_id": 2, "count": 4})
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
@domain.capability("job_run", tier="core", example={"job_id": 1})
def job_run(ctx: CallContext, args: inputs.JobRef) -> Result:
    """Back up a job's folder now into a new .tar.gz archive with a manifest."""
    job = JOB.fetch(ctx.db, args.job_id)
    run = runs.run_job(ctx.db, job)
    over = len(rules.prunable(job))
    result: Result = {"run": serialize.run(run)}
    if over:
        result["note"] = f"job {job.id} keeps {job.retention_count} runs and has {over} more; see backups.job_prune"
    return result


# Runs

records.add_get(domain, RUN, example_id=2)
records.add_list(domain, RUN, inputs.RunFilter, example={"job_id": 1}, references={"job_id": JOB})


@domain.capability("run_verify", read_only=True, example={"run_id": 2})
def run_verify(ctx: CallContext, args: inputs.RunRef) -> Result:
    """Re-hash every file of a run's archive and report corrupted, missing or unexpected ones."""
    return reports.verify(RUN.fetch(ctx.db, args.run_id))


@domain.capability(
    "run_restore",
    destructive=True,  # with overwrite=true it replaces files in the target
    example={"run_id": 1, "paths": ["invoices"], "target": "restores/documents-2026-09-01"},
)
def run_restore(ctx: CallContext, args: inputs.RunRestore) -> Result:
    """Restore a run's archive, or some of its files, into a folder of the sandbox."""
    run = RUN.fetch(ctx.db, args.run_id)
    return restore.restore(run, args.target, args.paths, args.overwrite)


@domain.capability("run_diff", read_only=True, example={"from_run_id": 1, "to_run_id": 2})
def run_diff(ctx: CallContext, args: inputs.RunDiff) -> Result:
    """Compare two runs' manifests: files added, removed and changed."""
    return reports.diff(RUN.fetch(ctx.db, args.from_run_id), RUN.fetch(ctx.db, args.to_run_id))


@domain.capability("run_manifest_dump", read_only=True, example={"run_id": 2})
def run_manifest_dump(ctx: CallContext, args: inputs.ManifestDump) -> Result:
    """Dump the raw manifest stored beside a run's archive."""
    return reports.manifest_dump(RUN.fetch(ctx.db, args.run_id), args.limit, args.offset)


@domain.capability(
    "schedule_preview", read_only=True, example={"schedule": "0 2 * * 1-5", "count": 5, "after": "2026-12-01T00:00:00Z"}
)
def schedule_preview(ctx: CallContext, args: inputs.SchedulePreview) -> Result:
    """List the times a cron schedule would fire, to check one before using it."""
    times = schedule.next_times(args.schedule, args.count, args.after)
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:], strict=False)]
    return {
        "schedule": args.schedule,
        "after": (args.after or datetime.now(UTC)).astimezone(UTC).isoformat(),
        "next_runs": [t.isoformat() for t in times],
        "smallest_gap_seconds": int(min(gaps)) if gaps else None,
    }


@domain.capability("storage_stats", read_only=True, example={})
def storage_stats(ctx: CallContext, args: inputs.StorageStats) -> Result:
    """Report the space archives take per job, missing archives and orphan files."""
    return reports.storage(ctx.db)


@domain.capability("job_prune", destructive=True, idempotent=True, example={"job_id": 1})
def job_prune(ctx: CallContext, args: inputs.JobPrune) -> Result:
    """Delete the runs and archives a job's retention count no longer keeps."""
    if args.job_id is not None:
        jobs = [JOB.fetch(ctx.db, args.job_id)]
    else:
        jobs = list(ctx.db.scalars(select(Job).order_by(Job.id)))
    report: list[Result] = []
    for job in jobs:
        gone = rules.prunable(job)
        if not args.dry_run:
            # Files go first: a crash between the two leaves a run whose archive is missing,
            # which storage_stats reports, never an archive no record points at.
            for run in gone:
                runs.remove_files(run)
                ctx.db.delete(run)
            ctx.db.flush()
        report.append(
            {
                "job_id": job.id,
                "retention_count": job.retention_count,
                "pruned_run_ids": [r.id for r in gone],
                "freed_bytes": sum(r.archive_bytes or 0 for r in gone),
            }
        )
    return {"dry_run": args.dry_run, "jobs": report, "pruned": sum(len(j["pruned_run_ids"]) for j in report)}


@domain.capability("run_delete", destructive=True, idempotent=True, example={"run_id": 3})
def run_delete(ctx: CallContext, args: inputs.RunDelete) -> Result:
    """Delete a run with its archive and manifest."""
    run = RUN.fetch(ctx.db, args.run_id)
    rules.check_run_delete(run, args.force)
    removed = runs.remove_files(run)
    ctx.db.delete(run)
    ctx.db.flush()
    return {"deleted": {"run_id": args.run_id}, "removed_files": removed}


@domain.capability("job_delete", destructive=True, idempotent=True, example={"job_id": 4})
def job_delete(ctx: CallContext, args: inputs.JobDelete) -> Result:
    """Delete a backup job; one with archives needs delete_archives=true."""
    job = JOB.fetch(ctx.db, args.job_id)
    archived = [r.id for r in job.runs if r.archive is not None]
    if archived and not args.delete_archives:
        raise Conflict(
            f"job {job.id} still has archives (runs {archived}); pass delete_archives=true to delete them with it, "
            "or disable the job with backups.job_update enabled=false"
        )
    removed = [path for run in job.runs for path in runs.remove_files(run)]
    run_ids = [r.id for r in job.runs]
    ctx.db.delete(job)
    ctx.db.flush()
    return {"deleted": {"job_id": args.job_id}, "deleted_run_ids": run_ids, "removed_files": removed}

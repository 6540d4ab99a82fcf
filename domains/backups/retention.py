"""What is kept and what goes: pruning runs past a job's retention count, deleting a run or a
job with its archives. Files go before their records (see job_prune)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from domains.backups import inputs, packing, rules
from domains.backups.entities import JOB, RUN
from domains.backups.tables import Job
from facade.kit import CallContext, Conflict, Toolset

Result = dict[str, Any]
tools = Toolset()


# Job 2 keeps two runs and has two, so its example prunes nothing; retention of the others
# is for their own examples (job 1's runs are restored and compared). Backups are the undo of
# everything else: deleting them (prune, run_delete, job_delete) has the host ask first (approval 1).
@tools.capability("job_prune", approval=1, destructive=True, idempotent=True, example={"job_id": 2})
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
                packing.remove_files(run)
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


@tools.capability("run_delete", approval=1, destructive=True, idempotent=True, example={"run_id": 3})
def run_delete(ctx: CallContext, args: inputs.RunDelete) -> Result:
    """Delete a run with its archive and manifest."""
    run = RUN.fetch(ctx.db, args.run_id)
    rules.check_run_delete(run, args.force)
    removed = packing.remove_files(run)
    ctx.db.delete(run)
    ctx.db.flush()
    return {"deleted": {"run_id": args.run_id}, "removed_files": removed}


@tools.capability("job_delete", approval=1, destructive=True, idempotent=True, example={"job_id": 3})
def job_delete(ctx: CallContext, args: inputs.JobDelete) -> Result:
    """Delete a backup job; one with archives needs delete_archives=true."""
    job = JOB.fetch(ctx.db, args.job_id)
    archived = [r.id for r in job.runs if r.archive is not None]
    if archived and not args.delete_archives:
        raise Conflict(
            f"job {job.id} still has archives (runs {archived}); pass delete_archives=true to delete them with it, "
            "or disable the job with backups.job_update enabled=false"
        )
    removed = [path for run in job.runs for path in packing.remove_files(run)]
    run_ids = [r.id for r in job.runs]
    ctx.db.delete(job)
    ctx.db.flush()
    return {"deleted": {"job_id": args.job_id}, "deleted_run_ids": run_ids, "removed_files": removed}

"""Runs: one backup of a job each, with its archive and manifest; reading, checking,
comparing and restoring them."""

from __future__ import annotations

from typing import Any

from domains.backups import inputs, reports, restore
from domains.backups.entities import JOB, RUN
from facade.kit import CallContext, Toolset, records

Result = dict[str, Any]
tools = Toolset()

records.add_get(tools, RUN, example_id=2)
records.add_list(tools, RUN, inputs.RunFilter, example={"job_id": 1}, references={"job_id": JOB})


@tools.capability("run_verify", read_only=True, example={"run_id": 2})
def run_verify(ctx: CallContext, args: inputs.RunRef) -> Result:
    """Re-hash every file of a run's archive and report corrupted, missing or unexpected ones."""
    return reports.verify(RUN.fetch(ctx.db, args.run_id))


@tools.capability(
    "run_restore",
    destructive=True,  # with overwrite=true it replaces files in the target
    example={"run_id": 1, "paths": ["invoices"], "target": "restores/documents-2026-09-01"},
)
def run_restore(ctx: CallContext, args: inputs.RunRestore) -> Result:
    """Restore a run's archive, or some of its files, into a folder of the sandbox."""
    run = RUN.fetch(ctx.db, args.run_id)
    return restore.restore(run, args.target, args.paths, args.overwrite)


@tools.capability("run_diff", read_only=True, example={"from_run_id": 1, "to_run_id": 2})
def run_diff(ctx: CallContext, args: inputs.RunDiff) -> Result:
    """Compare two runs' manifests: files added, removed and changed."""
    return reports.diff(RUN.fetch(ctx.db, args.from_run_id), RUN.fetch(ctx.db, args.to_run_id))


@tools.capability("run_manifest_dump", read_only=True, example={"run_id": 2})
def run_manifest_dump(ctx: CallContext, args: inputs.ManifestDump) -> Result:
    """Dump the raw manifest stored beside a run's archive."""
    return reports.manifest_dump(RUN.fetch(ctx.db, args.run_id), args.limit, args.offset)

"""Reading runs back: verify an archive against its manifest, compare two runs, dump a raw
manifest, and account for the storage the archives take; and the two reports an agent asks
for directly, a schedule's preview and the storage taken."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.backups import archive, inputs, sandbox, schedule
from domains.backups.tables import Job, Run
from facade.kit import CallContext, Conflict, Toolset

SHOWN = 500  # the most paths one list of a result names; counts always cover everything
tools = Toolset()


def with_archive(run: Run) -> str:
    if run.status != "succeeded" or run.archive is None:
        raise Conflict(
            f"run {run.id} failed ({run.error}) and has no archive; pick a succeeded run from backups.run_list"
        )
    return run.archive


def verify(run: Run) -> dict[str, Any]:
    """Re-hash every member of the run's archive against the manifest in the database."""
    relative = with_archive(run)
    path = sandbox.root() / relative
    result: dict[str, Any] = {"run_id": run.id, "archive": relative, "checked": 0}
    if not path.is_file():
        return {**result, "ok": False, "archive_present": False, "error": "the archive file is missing from disk"}
    with sandbox.os_errors(relative):
        digest_ok = archive.sha256_of(path) == run.archive_sha256
    result.update(archive_present=True, archive_sha256_ok=digest_ok, manifest_file=_sidecar_state(run, path))
    try:
        with sandbox.os_errors(relative):
            found = archive.members(path)
    except archive.Unreadable as exc:
        return {**result, "ok": False, "readable": False, "error": f"the archive cannot be read: {exc}"}
    expected = {f.path: f for f in run.files}
    in_archive = {m.name: m for m in found if m.kind == "file"}
    corrupted = [
        {
            "path": name,
            "expected_size": f.size,
            "actual_size": in_archive[name].size,
            "expected_sha256": f.sha256,
            "actual_sha256": in_archive[name].sha256,
        }
        for name, f in expected.items()
        if name in in_archive and (in_archive[name].sha256 != f.sha256 or in_archive[name].size != f.size)
    ]
    missing = sorted(set(expected) - set(in_archive))
    unexpected = sorted({m.name for m in found} - set(expected))
    ok = digest_ok and not corrupted and not missing and not unexpected and result["manifest_file"] == "ok"
    return {
        **result,
        "ok": ok,
        "readable": True,
        "checked": len(expected),
        "corrupted": corrupted[:SHOWN],
        "missing": missing[:SHOWN],
        "unexpected": unexpected[:SHOWN],
    }


def _sidecar_state(run: Run, path: Any) -> str:
    document = read_sidecar(run, path)
    if isinstance(document, str):
        return document
    listed = {(f.get("path"), f.get("sha256"), f.get("size")) for f in document.get("files", [])}
    return "ok" if listed == {(f.path, f.sha256, f.size) for f in run.files} else "differs"


def read_sidecar(run: Run, path: Any) -> dict[str, Any] | str:
    """The manifest stored beside the archive, or 'missing' / 'unreadable'."""
    sidecar = archive.manifest_path(path)
    try:
        document = json.loads(sidecar.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return "unreadable"
    return document if isinstance(document, dict) else "unreadable"


def manifest_dump(run: Run, limit: int, offset: int) -> dict[str, Any]:
    """The raw manifest beside the archive, its files paged; the database's copy when the file
    is gone, so the listing is never lost with it."""
    relative = with_archive(run)
    path = sandbox.root() / relative
    document = read_sidecar(run, path)
    if isinstance(document, str):
        files = [
            {"path": f.path, "size": f.size, "sha256": f.sha256, "modified_at": f.modified_at.isoformat()}
            for f in run.files
        ]
        header: dict[str, Any] = {"run_id": run.id, "archive": relative, "archive_sha256": run.archive_sha256}
        state = document
    else:
        files = [f for f in document.get("files", []) if isinstance(f, dict)]
        header = {k: v for k, v in document.items() if k != "files"}
        state = _sidecar_state(run, path)
    return {
        "manifest_file": sandbox.display(archive.manifest_path(path)) if state != "missing" else None,
        "manifest_state": state,
        "manifest": {**header, "files": files[offset : offset + limit]},
        "total": len(files),
    }


def diff(old: Run, new: Run) -> dict[str, Any]:
    """What changed between two runs' manifests."""
    with_archive(old)
    with_archive(new)
    before = {f.path: f for f in old.files}
    after = {f.path: f for f in new.files}
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = [
        {"path": p, "old_size": before[p].size, "new_size": after[p].size}
        for p in sorted(set(before) & set(after))
        if before[p].sha256 != after[p].sha256
    ]
    return {
        "from_run_id": old.id,
        "to_run_id": new.id,
        "same_job": old.job_id == new.job_id,
        "added": added[:SHOWN],
        "removed": removed[:SHOWN],
        "changed": changed[:SHOWN],
        "counts": {
            "added": len(added),
            "removed": len(removed),
            "changed": len(changed),
            "unchanged": len(set(before) & set(after)) - len(changed),
        },
        "bytes_delta": new.source_bytes - old.source_bytes,
    }


def storage(db: Session) -> dict[str, Any]:
    """Space the archives take per job, archives missing from disk, and files no run owns."""
    base = sandbox.root()
    per_job = db.execute(
        select(Job.id, Job.name, func.count(Run.id), func.coalesce(func.sum(Run.archive_bytes), 0))
        .add_columns(func.max(Run.started_at))
        .outerjoin(Run, (Run.job_id == Job.id) & (Run.status == "succeeded"))
        .group_by(Job.id, Job.name)
        .order_by(Job.id)
    ).all()
    known: set[str] = set()
    missing: list[int] = []
    for run_id, relative in db.execute(select(Run.id, Run.archive).where(Run.archive.is_not(None)).order_by(Run.id)):
        known |= {relative, sandbox.display(archive.manifest_path(base / relative))}
        if not (base / relative).is_file():
            missing.append(run_id)
    on_disk = 0
    orphans: list[dict[str, Any]] = []
    with sandbox.os_errors(sandbox.ARCHIVES):
        for path in sorted((base / sandbox.ARCHIVES).rglob("*")):
            if path.is_file() and not path.is_symlink():
                size = path.stat().st_size
                on_disk += size
                rel = path.relative_to(base).as_posix()
                if rel not in known:
                    orphans.append({"path": rel, "size": size})
        disk = shutil.disk_usage(base)
    return {
        "jobs": [
            {"job_id": i, "name": n, "runs": c, "archive_bytes": int(b), "latest_run_at": t.isoformat() if t else None}
            for i, n, c, b, t in per_job
        ],
        "archive_bytes_recorded": sum(int(row[3]) for row in per_job),
        "bytes_on_disk": on_disk,
        "runs_missing_archive": missing,
        "orphan_files": orphans[:SHOWN],
        "disk": {"total": disk.total, "used": disk.used, "free": disk.free},
    }


@tools.capability(
    "schedule_preview", read_only=True, example={"schedule": "0 2 * * 1-5", "count": 5, "after": "2026-12-01T00:00:00Z"}
)
def schedule_preview(ctx: CallContext, args: inputs.SchedulePreview) -> dict[str, Any]:
    """List the times a cron schedule would fire, to check one before using it."""
    times = schedule.next_times(args.schedule, args.count, args.after)
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:], strict=False)]
    return {
        "schedule": args.schedule,
        "after": (args.after or datetime.now(UTC)).astimezone(UTC).isoformat(),
        "next_runs": [t.isoformat() for t in times],
        "smallest_gap_seconds": int(min(gaps)) if gaps else None,
    }


@tools.capability("storage_stats", read_only=True, example={})
def storage_stats(ctx: CallContext, args: inputs.StorageStats) -> dict[str, Any]:
    """Report the space archives take per job, missing archives and orphan files."""
    return storage(ctx.db)

"""Running a job: walk its source inside the sandbox, pick files by the job's globs, pack them
into a .tar.gz with its manifest, and record the run. A run that cannot complete is recorded
as failed with the reason, like any backup system's history; it leaves no archive behind."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from sqlalchemy.orm import Session

from domains.backups import archive, sandbox
from domains.backups.archive import Entry
from domains.backups.settings import settings
from domains.backups.tables import Job, Run, RunFile
from facade.kit import DomainError, Forbidden, InvalidRequest, NotFound, deadline

MANIFEST_FORMAT = "facade-backups-manifest/1"


def matches(path: str, patterns: Iterable[str]) -> bool:
    """Whether a file (its path relative to the source) matches a glob: a pattern with a '/' is
    matched against the whole path, one without against the file name; '*' also crosses '/'."""
    name = PurePosixPath(path).name
    return any(fnmatchcase(path if "/" in p else name, p) for p in patterns)


def source_folder(given: str) -> Path:
    """The real folder a job backs up; refused if missing, not a folder, or in the archives."""
    real = sandbox.resolve(given)
    if sandbox.in_archives(real):
        raise Forbidden(
            f"{given!r} is inside the archives area, which only the domain writes; back up a folder under 'sources/'"
        )
    if real == sandbox.root():
        raise InvalidRequest(f"{given!r} is the whole sandbox, archives included; back up a folder under 'sources/'")
    if not real.exists():
        raise NotFound(
            f"{given!r} does not exist in the backups sandbox; create it first or pick a folder under 'sources/'"
        )
    if not real.is_dir():
        raise InvalidRequest(f"{given!r} is a file; a job backs up a folder, e.g. 'sources/documents'")
    return real


@dataclass
class Collected:
    entries: list[Entry] = field(default_factory=list)
    skipped_links: int = 0
    total: int = 0


def collect(source: Path, include: list[str], exclude: list[str]) -> Collected:
    """The regular files under `source` the globs select, in a stable order. Links are skipped
    (counted): following one could pack files from outside the sandbox."""
    found = Collected()

    def fail(exc: OSError) -> None:
        raise exc

    for folder, dirs, files in os.walk(source, onerror=fail):
        deadline.check()  # the run is recorded as failed, saying why
        dirs.sort()
        base = Path(folder)
        for name in list(dirs):
            if (base / name).is_symlink():
                found.skipped_links += 1
                dirs.remove(name)
        for name in sorted(files):
            path = base / name
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                found.skipped_links += 1
                continue
            if not stat.S_ISREG(info.st_mode):
                continue  # sockets and pipes hold nothing to back up
            rel = path.relative_to(source).as_posix()
            if not matches(rel, include) or matches(rel, exclude):
                continue
            found.entries.append(
                Entry(rel, info.st_size, archive.utc_of(info.st_mtime), info.st_mode, _opener(path))
            )
            found.total += info.st_size
    return found


def _opener(path: Path) -> Callable[[], BinaryIO]:
    # O_NOFOLLOW: a file swapped for a link between the walk and the packing is refused (ELOOP)
    # rather than followed out of the sandbox.
    return lambda: os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb")


def archive_path(job: Job, run: Run) -> str:
    """Where a run's archive goes, relative to the root: one folder per job, named by run."""
    stamp = run.started_at.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{sandbox.ARCHIVES}/job-{job.id}/run-{run.id}-{stamp}{archive.SUFFIX}"


def pack(job: Job, run: Run, entries: list[Entry], skipped_links: int = 0) -> None:
    """Write the run's archive and manifest and fill in the run (flushed, id known). An
    OSError leaves neither file behind and propagates to the caller."""
    relative = archive_path(job, run)
    target = sandbox.root() / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        packed = archive.write(target, entries, run.started_at)
        digest = archive.sha256_of(target)
        files = [
            {"path": p.path, "size": p.size, "sha256": p.sha256, "modified_at": p.modified.isoformat()}
            for p in packed
        ]
        archive.write_manifest(
            target,
            {
                "format": MANIFEST_FORMAT,
                "run_id": run.id,
                "job_id": job.id,
                "job": job.name,
                "source": job.source,
                "created_at": run.started_at.isoformat(),
                "archive": relative,
                "archive_sha256": digest,
                "files": files,
            },
        )
        size = target.stat().st_size
    except BaseException:
        target.unlink(missing_ok=True)
        archive.manifest_path(target).unlink(missing_ok=True)
        raise
    run.archive, run.archive_bytes, run.archive_sha256 = relative, size, digest
    run.file_count, run.source_bytes, run.skipped_links = len(packed), sum(p.size for p in packed), skipped_links
    run.files = [RunFile(path=p.path, size=p.size, sha256=p.sha256, modified_at=p.modified) for p in packed]
    run.status = "succeeded"


def run_job(db: Session, job: Job) -> Run:
    """Run the job now; the run is recorded whether it succeeds or fails."""
    run = Run(job=job, status="failed", started_at=datetime.now(UTC))
    db.add(run)
    db.flush()  # the archive's name carries the run's id
    try:
        source = source_folder(job.source)
        with sandbox.os_errors(job.source):
            found = collect(source, job.include, job.exclude)
        limit = settings().max_source_bytes
        if found.total > limit:
            raise InvalidRequest(
                f"the selected files hold {found.total} bytes, more than FACADE_BACKUPS_MAX_SOURCE_BYTES={limit}; "
                "narrow the job's include/exclude globs or ask an operator to raise the limit"
            )
        pack(job, run, found.entries, found.skipped_links)
    except DomainError as exc:
        run.status, run.error = "failed", str(exc)
    except OSError as exc:  # a file vanished or the disk filled up mid-run: the run failed
        where = f" ({exc.filename})" if exc.filename else ""
        run.status, run.error = "failed", f"{exc.strerror or exc}{where}; fix the cause and run the job again"
    run.finished_at = datetime.now(UTC)
    db.flush()
    return run


def remove_files(run: Run) -> list[str]:
    """Delete a run's archive and manifest from disk; returns what was removed."""
    if run.archive is None:
        return []
    base = sandbox.root()
    target = base / run.archive
    removed: list[str] = []
    with sandbox.os_errors(run.archive):
        for path in (target, archive.manifest_path(target)):
            if path.exists():
                path.unlink()
                removed.append(path.relative_to(base).as_posix())
        try:
            target.parent.rmdir()  # the job's folder goes with its last archive
        except OSError:
            pass  # still holds other runs' archives
    return removed

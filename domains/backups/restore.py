"""Restoring a run's archive into a folder of the sandbox. Every member is checked before
anything is written: a member that is not a plain file, is not in the run's manifest, or whose
name or links would lead outside the target is refused and reported, never written."""

from __future__ import annotations

import hashlib
import os
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from domains.backups import archive, sandbox
from domains.backups.tables import Run
from facade.kit import Conflict, Forbidden, InvalidRequest, NotFound, within

SHOWN = 200  # the most restored files listed by name; the counts always cover all of them


@dataclass(frozen=True, slots=True)
class Planned:
    info: tarfile.TarInfo
    dest: Path


def target_folder(run: Run, given: str | None) -> Path:
    name = given if given is not None else f"{sandbox.RESTORES}/run-{run.id}"
    real = sandbox.resolve(name)
    if sandbox.in_archives(real):
        raise Forbidden(
            f"{name!r} is inside the archives area; restore into another folder, e.g. 'restores/run-{run.id}'"
        )
    if real == sandbox.root():
        raise InvalidRequest(
            "restoring into the sandbox root would mix files with its areas; "
            f"give a folder, e.g. 'restores/run-{run.id}'"
        )
    if real.exists() and not real.is_dir():
        raise InvalidRequest(f"{name!r} is a file; give a folder to restore into")
    return real


def selected(manifest: set[str], paths: list[str] | None) -> set[str]:
    """The manifest paths a call asks for: exact files, or every file under a folder."""
    if paths is None:
        return manifest
    chosen: set[str] = set()
    for given in paths:
        wanted = given.strip("/")
        hits = {p for p in manifest if p == wanted or p.startswith(wanted + "/")}
        if not hits:
            raise NotFound(
                f"{given!r} is not in this run's manifest; list its files with backups.run_manifest_dump"
            )
        chosen |= hits
    return chosen


def refusal(info: tarfile.TarInfo, manifest: set[str], target: Path) -> str | None:
    """Why a member may not be written, or None when it may."""
    name = info.name
    parts = PurePosixPath(name).parts
    if "\x00" in name or name.startswith("/") or ".." in parts or not parts:
        return "its name leads outside the target folder"
    if not info.isreg():
        return f"it is a {archive.kind_of(info)}, not a plain file"
    if name not in manifest:
        return "it is not in the run's manifest"
    # realpath follows links already in the target: a link planted there must not redirect us.
    if not within(Path(os.path.realpath(target.joinpath(*parts))), target):
        return "a link in the target folder would send it outside the target"
    return None


def restore(run: Run, target_given: str | None, paths: list[str] | None, overwrite: bool) -> dict[str, Any]:
    if run.status != "succeeded" or run.archive is None:
        raise Conflict(
            f"run {run.id} failed and has no archive; restore a succeeded run (backups.run_list status='succeeded')"
        )
    source = sandbox.root() / run.archive
    if not source.is_file():
        raise NotFound(f"the archive of run {run.id} is missing from disk ({run.archive}); restore another run")
    target = target_folder(run, target_given)
    expected = {f.path: f.sha256 for f in run.files}
    wanted = selected(set(expected), paths)
    try:
        with archive.reading(source) as tar:
            plan, refused, seen = _plan(tar, wanted, set(expected), target)
            missing = sorted(wanted - seen)
            existing = [p.info.name for p in plan if os.path.lexists(p.dest)]
            if existing and not overwrite:
                raise Conflict(
                    f"{len(existing)} files already exist in the target (e.g. {existing[0]!r}); "
                    "pass overwrite=true to replace them or choose another target"
                )
            with sandbox.os_errors(sandbox.display(target)):
                restored = [_extract(tar, p, target, expected[p.info.name]) for p in plan]
    except archive.Unreadable as exc:
        raise Conflict(
            f"the archive of run {run.id} is damaged ({exc}); check it with backups.run_verify and restore an older run"
        ) from None
    mismatched = [r["path"] for r in restored if not r["verified"]]
    return {
        "run_id": run.id,
        "target": sandbox.display(target),
        "restored_count": len(restored),
        "restored_bytes": sum(r["size"] for r in restored),
        "restored": restored[:SHOWN],
        "refused": refused,
        "missing_from_archive": missing,
        "mismatched": mismatched,
    }


def _plan(
    tar: tarfile.TarFile, wanted: set[str], manifest: set[str], target: Path
) -> tuple[list[Planned], list[dict[str, str]], set[str]]:
    plan: list[Planned] = []
    refused: list[dict[str, str]] = []
    seen: set[str] = set()
    try:
        infos = tar.getmembers()
    except archive.UNREADABLE as exc:
        raise archive.Unreadable(str(exc) or type(exc).__name__) from None
    for info in infos:
        if info.isdir() and info.name.strip("/") and ".." not in PurePosixPath(info.name).parts:
            continue  # folders are made as files need them
        why = refusal(info, manifest, target)
        if why is not None:
            refused.append({"path": info.name, "reason": why})
            seen.add(info.name)
            continue
        if info.name in wanted and info.name not in seen:
            seen.add(info.name)
            plan.append(Planned(info, target.joinpath(*PurePosixPath(info.name).parts)))
    return plan, refused, seen


def _extract(tar: tarfile.TarFile, planned: Planned, target: Path, sha256: str) -> dict[str, Any]:
    dest = planned.dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Checked again once the folders exist: nothing may have turned into a link meanwhile.
    if not within(Path(os.path.realpath(dest.parent)), target):
        raise Forbidden(f"{planned.info.name!r} would be written outside the target folder; remove the links in it")
    if dest.is_dir() and not dest.is_symlink():
        raise Conflict(f"a folder stands where {planned.info.name!r} goes; choose another target")
    if os.path.lexists(dest):
        dest.unlink()
    digest = hashlib.sha256()
    size = 0
    try:
        handle = tar.extractfile(planned.info)
        assert handle is not None  # planned members are regular files
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            while chunk := handle.read(archive.CHUNK):
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
    except archive.DAMAGED as exc:  # any other OSError here is the target disk's, not the archive's
        dest.unlink(missing_ok=True)
        raise archive.Unreadable(str(exc) or type(exc).__name__) from None
    os.utime(dest, (planned.info.mtime, planned.info.mtime))
    return {"path": planned.info.name, "size": size, "verified": digest.hexdigest() == sha256}

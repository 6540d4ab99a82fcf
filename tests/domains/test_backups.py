"""The backups domain: every capability's example succeeds in any order on a freshly
seeded database and sandbox (SQLite, and PostgreSQL when reachable), archives are real and
verifiable, restores stay inside the sandbox, retention holds, and the migration builds exactly
the schema of tables.py."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.backups import domain
from domains.backups.seed import DOCUMENTS_BEFORE
from domains.backups.tables import Job, Run, RunFile
from facade.serving.database import session_factory
from facade.kit import Conflict, Forbidden, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, count, sqlite_engine

backups = DomainHarness(domain, root_env="FACADE_BACKUPS_ROOT")
call, migrated, seeded = backups.call, backups.migrated, backups.seeded


# Helpers and fixtures


def run_archive(engine: Engine, run_id: int) -> Path:
    with session_factory(engine)() as session:
        run = session.get(Run, run_id)
        assert run is not None and run.archive is not None
        return Path(os.environ["FACADE_BACKUPS_ROOT"]) / run.archive


def rewrite_archive(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> None:
    """Replace an archive with one holding exactly `members` (and symlink members)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    path.write_bytes(buffer.getvalue())


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return backups.sandbox(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return backups.template(tmp_path_factory.mktemp("backups-template"))


@pytest.fixture
def db(root: Path, tmp_path: Path, template: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database with its seeded sandbox."""
    with backups.copy(template, tmp_path) as engine:
        yield engine


# Tests


class TestCatalogue:
    """A real catalogue: enough capabilities in both tiers, one-sentence descriptions, honest
    annotations."""

    def test_floors_and_tiers(self) -> None:
        backups.assert_tiers(at_least=15)
        assert domain.default_mode == "core"

    def test_descriptions_are_one_short_sentence(self) -> None:
        backups.assert_descriptions_are_one_sentence(max_length=100)
        backups.assert_no_identity_fields()

    def test_annotations(self) -> None:
        destructive = {c.action for c in domain.capabilities if c.annotations.destructive}
        assert destructive == {"job_delete", "run_delete", "job_prune", "run_restore"}
        for cap in domain.capabilities:
            if cap.annotations.read_only:
                assert not cap.annotations.destructive, cap.name


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seed, succeeds."""

    def test_sqlite(self, db: Engine) -> None:
        backups.assert_walk_succeeds(db)

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, seed: int) -> None:
        backups.assert_walk_succeeds(db, shuffle=seed)

    def test_postgresql(self, root: Path, pg_schema: Callable[[], Engine]) -> None:
        backups.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the three backups tables."""

    harness, tables = backups, 3


class TestSeed:
    """The seed is deterministic, idempotent, and never overwrites files already there."""

    def test_ids_and_archives(self, db: Engine, root: Path) -> None:
        with session_factory(db)() as session:
            assert list(session.scalars(select(Job.name).order_by(Job.id))) == ["documents", "photos", "server-config"]
            assert list(session.scalars(select(Run.job_id).order_by(Run.id))) == [1, 1, 2, 2]
        assert (root / "sources/documents/draft.tmp").is_file()
        assert call(db, "run_verify", run_id=1)["ok"] is True

    def test_archives_are_byte_identical_across_seeds(self, db: Engine, root: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
        first = hashlib.sha256(run_archive(db, 2).read_bytes()).hexdigest()
        monkeypatch.setenv("FACADE_BACKUPS_ROOT", str(tmp_path / "again"))
        other = seeded(migrated(sqlite_engine(tmp_path / "again.db")))
        assert hashlib.sha256(run_archive(other, 2).read_bytes()).hexdigest() == first

    def test_seeding_twice_changes_nothing(self, db: Engine, root: Path) -> None:
        (root / "sources/documents/budget-2026.csv").write_text("edited by a user\n")
        seeded(db)
        assert count(db, Job) == 3 and count(db, Run) == 4 and count(db, RunFile) == 17
        assert (root / "sources/documents/budget-2026.csv").read_text() == "edited by a user\n"


class TestSandbox:
    """Sources, archives and restore targets never leave the sandbox root."""

    @pytest.mark.parametrize("source", ["../outside", "sources/../../outside", "/etc", "sources/a\x00b"])
    def test_escaping_sources_are_forbidden(self, db: Engine, source: str) -> None:
        with pytest.raises(Forbidden):
            call(db, "job_create", name="escape", source=source, schedule="0 2 * * *")

    def test_symlink_leading_out_is_forbidden(self, db: Engine, root: Path, tmp_path: Path) -> None:
        (tmp_path / "secret").mkdir()
        (root / "sources/sneaky").symlink_to(tmp_path / "secret")
        with pytest.raises(Forbidden, match="through a link"):
            call(db, "job_create", name="sneaky", source="sources/sneaky", schedule="0 2 * * *")

    def test_absolute_path_inside_the_root_is_accepted(self, db: Engine, root: Path) -> None:
        job = call(db, "job_create", name="abs", source=str(root / "sources/config"), schedule="@daily")["job"]
        assert job["source"] == "sources/config" and job["schedule"] == "@daily"

    def test_sources_must_be_existing_folders_outside_the_archives(self, db: Engine) -> None:
        with pytest.raises(NotFound, match="does not exist"):
            call(db, "job_create", name="x", source="sources/nope", schedule="0 2 * * *")
        with pytest.raises(InvalidRequest, match="is a file"):
            call(db, "job_create", name="x", source="sources/documents/budget-2026.csv", schedule="0 2 * * *")
        with pytest.raises(Forbidden, match="archives area"):
            call(db, "job_create", name="x", source="archives", schedule="0 2 * * *")
        with pytest.raises(InvalidRequest, match="whole sandbox"):
            call(db, "job_create", name="x", source=".", schedule="0 2 * * *")


class TestJobs:
    """Schedules are valid cron, names unique, and a job with archives is not deleted lightly."""

    @pytest.mark.parametrize("cron", ["61 * * * *", "* * *", "0 0 0 * * *", "@reboot", "every day"])
    def test_invalid_cron_is_refused(self, db: Engine, cron: str) -> None:
        with pytest.raises(ValidationError, match="minute hour day month weekday"):
            call(db, "job_create", name="bad", source="sources/config", schedule=cron)

    def test_a_schedule_that_never_fires_is_refused(self, db: Engine) -> None:
        with pytest.raises(ValidationError, match="never fires"):
            call(db, "schedule_preview", schedule="0 0 30 2 *")

    def test_next_runs_follow_the_schedule(self, db: Engine) -> None:
        preview = call(db, "schedule_preview", schedule="30 3 * * 0", count=3, after="2026-12-01T00:00:00Z")
        assert preview["next_runs"] == [
            "2026-12-06T03:30:00+00:00", "2026-12-13T03:30:00+00:00", "2026-12-20T03:30:00+00:00"
        ]
        assert preview["smallest_gap_seconds"] == 7 * 86400
        disabled = call(db, "job_next_runs", job_id=3, count=2)
        assert disabled["enabled"] is False and len(disabled["next_runs"]) == 2 and "disabled" in disabled["note"]

    def test_names_are_unique_ignoring_case(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="job 1 is already named"):
            call(db, "job_create", name="DOCUMENTS", source="sources/config", schedule="0 2 * * *")
        with pytest.raises(Conflict, match="job 2 is already named"):
            call(db, "job_update", job_id=1, name="photos")

    def test_update_checks_like_create(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="include cannot be null"):
            call(db, "job_update", job_id=1, include=None)
        with pytest.raises(Forbidden):
            call(db, "job_update", job_id=1, source="../x")
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(db, "job_update", job_id=1)
        assert call(db, "job_update", job_id=3, enabled=True)["job"]["next_run_at"] is not None

    def test_delete_with_archives_needs_consent(self, db: Engine, root: Path) -> None:
        with pytest.raises(Conflict, match=r"runs \[1, 2\]\); pass delete_archives=true"):
            call(db, "job_delete", job_id=1)
        archive = run_archive(db, 1)
        result = call(db, "job_delete", job_id=1, delete_archives=True)
        assert result["deleted_run_ids"] == [1, 2] and len(result["removed_files"]) == 4
        assert not archive.exists() and not archive.parent.exists()
        assert count(db, RunFile) == 5  # only job 2's manifests remain
        with pytest.raises(NotFound, match=r"job 1 does not exist; list jobs with backups\.job_list"):
            call(db, "job_get", job_id=1)


class TestRuns:
    """A run writes a real .tar.gz of the selected files with a manifest beside it and in the
    database; a run that cannot complete is recorded as failed."""

    def test_archive_holds_exactly_the_selected_files(self, db: Engine, root: Path) -> None:
        (root / "sources/documents/~lock.docx").write_text("lock")
        os.symlink("/etc/passwd", root / "sources/documents/passwd-link")
        run = call(db, "job_run", job_id=1)["run"]
        assert run["status"] == "succeeded" and run["skipped_links"] == 1
        path = root / run["archive"]
        with tarfile.open(path, "r:gz") as tar:
            names = sorted(tar.getnames())
            member = tar.extractfile("budget-2026.csv")
            assert member is not None and member.read() == (root / "sources/documents/budget-2026.csv").read_bytes()
        assert "draft.tmp" not in names and "~lock.docx" not in names and "passwd-link" not in names
        assert len(names) == run["file_count"] == 6
        sidecar = json.loads(path.with_name(path.name.replace(".tar.gz", ".manifest.json")).read_text())
        expected = hashlib.sha256((root / "sources/documents/notes/meeting-2026-09-01.md").read_bytes()).hexdigest()
        assert {f["path"]: f["sha256"] for f in sidecar["files"]}["notes/meeting-2026-09-01.md"] == expected
        assert sidecar["archive_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest() == run["archive_sha256"]

    def test_unchanged_source_diffs_empty_against_the_seeded_run(self, db: Engine) -> None:
        new = call(db, "job_run", job_id=1)["run"]["id"]
        diff = call(db, "run_diff", from_run_id=2, to_run_id=new)
        assert diff["counts"] == {"added": 0, "removed": 0, "changed": 0, "unchanged": 6}

    def test_missing_source_records_a_failed_run(self, db: Engine, root: Path) -> None:
        (root / "sources/config/nginx.conf").unlink()
        for name in os.listdir(root / "sources/config"):
            (root / "sources/config" / name).unlink()
        (root / "sources/config").rmdir()
        run = call(db, "job_run", job_id=3)["run"]
        assert run["status"] == "failed" and run["archive"] is None and "does not exist" in run["error"]
        with pytest.raises(Conflict, match="has no archive"):
            call(db, "run_verify", run_id=run["id"])
        with pytest.raises(Conflict, match="failed and has no archive"):
            call(db, "run_restore", run_id=run["id"])

    def test_size_limit_fails_the_run(self, db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_BACKUPS_MAX_SOURCE_BYTES", "100")
        run = call(db, "job_run", job_id=1)["run"]
        assert run["status"] == "failed" and "FACADE_BACKUPS_MAX_SOURCE_BYTES=100" in run["error"]
        assert not list((Path(os.environ["FACADE_BACKUPS_ROOT"]) / "archives/job-1").glob(f"run-{run['id']}-*"))


class TestVerify:
    """Verification re-hashes every member and names what is wrong."""

    def test_tampered_archive(self, db: Engine) -> None:
        path = run_archive(db, 1)
        members = {k: v[0] for k, v in DOCUMENTS_BEFORE.items()}
        members["budget-2026.csv"] = b"category,planned,spent\nrent,0,0\n"
        del members["notes/meeting-2026-08-28.md"]
        members["extra.txt"] = b"not from the source\n"
        rewrite_archive(path, members)
        report = call(db, "run_verify", run_id=1)
        assert report["ok"] is False and report["archive_sha256_ok"] is False
        assert [c["path"] for c in report["corrupted"]] == ["budget-2026.csv"]
        assert report["missing"] == ["notes/meeting-2026-08-28.md"] and report["unexpected"] == ["extra.txt"]

    def test_truncated_and_missing_archives(self, db: Engine) -> None:
        path = run_archive(db, 2)
        path.write_bytes(path.read_bytes()[:200])
        report = call(db, "run_verify", run_id=2)
        assert report["ok"] is False and report["readable"] is False and "cannot be read" in report["error"]
        path.unlink()
        assert call(db, "run_verify", run_id=2)["archive_present"] is False
        assert call(db, "storage_stats")["runs_missing_archive"] == [2]

    def test_manifest_file_is_checked_and_dumped(self, db: Engine) -> None:
        path = run_archive(db, 4)
        sidecar = path.with_name(path.name.replace(".tar.gz", ".manifest.json"))
        document = json.loads(sidecar.read_text())
        document["files"][0]["sha256"] = "0" * 64
        sidecar.write_text(json.dumps(document))
        assert call(db, "run_verify", run_id=4)["manifest_file"] == "differs"
        sidecar.unlink()
        dumped = call(db, "run_manifest_dump", run_id=4, limit=2, offset=1)
        assert dumped["manifest_state"] == "missing" and dumped["total"] == 3
        assert [f["path"] for f in dumped["manifest"]["files"]] == [
            "2026-08-offsite/IMG_0102.png", "2026-08-offsite/IMG_0103.png"
        ]


class TestRestore:
    """Restores write verified files inside the sandbox and refuse every member that escapes."""

    def test_full_restore_then_overwrite(self, db: Engine, root: Path) -> None:
        result = call(db, "run_restore", run_id=2)
        assert result["target"] == "restores/run-2" and result["restored_count"] == 6 and not result["mismatched"]
        restored = root / "restores/run-2/budget-2026.csv"
        assert restored.read_bytes() == (root / "sources/documents/budget-2026.csv").read_bytes()
        restored.write_text("changed")
        with pytest.raises(Conflict, match="6 files already exist.*overwrite=true"):
            call(db, "run_restore", run_id=2)
        assert restored.read_text() == "changed"
        call(db, "run_restore", run_id=2, overwrite=True)
        assert restored.read_bytes() == (root / "sources/documents/budget-2026.csv").read_bytes()

    def test_selected_paths(self, db: Engine, root: Path) -> None:
        result = call(db, "run_restore", run_id=1, paths=["notes/", "budget-2026.csv"], target="restores/pick")
        assert sorted(r["path"] for r in result["restored"]) == ["budget-2026.csv", "notes/meeting-2026-08-28.md"]
        with pytest.raises(NotFound, match="not in this run's manifest; list its files with backups.run_manifest_dump"):
            call(db, "run_restore", run_id=1, paths=["nope.txt"])

    @pytest.mark.parametrize("target", ["archives/job-1", "../elsewhere", "/tmp", "."])
    def test_bad_targets(self, db: Engine, target: str) -> None:
        with pytest.raises((Forbidden, InvalidRequest)):
            call(db, "run_restore", run_id=1, target=target)

    def test_escaping_members_are_refused(self, db: Engine, root: Path, tmp_path: Path) -> None:
        evil = {"../escape.txt": b"x", "/abs.txt": b"y", "ok.txt": b"fine\n", "unlisted.txt": b"z"}
        rewrite_archive(run_archive(db, 1), evil, links={"link": "/etc"})
        with session_factory(db)() as session:
            run = session.get(Run, 1)
            assert run is not None
            run.files = [
                RunFile(path=p, size=len(c), sha256=hashlib.sha256(c).hexdigest(), modified_at=run.started_at)
                for p, c in evil.items()
                if p != "unlisted.txt"
            ]
            session.commit()
        result = call(db, "run_restore", run_id=1, target="restores/evil")
        assert [r["path"] for r in result["restored"]] == ["ok.txt"]
        reasons = {r["path"]: r["reason"] for r in result["refused"]}
        assert set(reasons) == {"../escape.txt", "/abs.txt", "unlisted.txt", "link"}
        assert "outside" in reasons["../escape.txt"] and "symlink" in reasons["link"]
        assert not (root / "restores/escape.txt").exists() and not Path("/abs.txt").exists()

    def test_links_planted_in_the_target_are_not_followed(self, db: Engine, root: Path, tmp_path: Path) -> None:
        outside = tmp_path / "outside"
        outside.mkdir()
        (root / "restores/planted").mkdir(parents=True)
        (root / "restores/planted/notes").symlink_to(outside)
        result = call(db, "run_restore", run_id=1, target="restores/planted")
        assert "notes/meeting-2026-08-28.md" in {r["path"] for r in result["refused"]}
        assert list(outside.iterdir()) == []


class TestRetention:
    """Pruning keeps each job's newest good runs; the newest good run needs force to delete."""

    def test_prune_keeps_the_newest_succeeded_runs(self, db: Engine) -> None:
        call(db, "job_update", job_id=1, retention_count=1)
        preview = call(db, "job_prune", job_id=1, dry_run=True)
        assert preview["jobs"][0]["pruned_run_ids"] == [1] and count(db, Run) == 4
        archive = run_archive(db, 1)
        assert call(db, "job_prune")["pruned"] == 1  # every job: job 2 keeps both of its runs
        assert not archive.exists() and count(db, Run) == 3

    def test_newer_failed_runs_survive_pruning(self, db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_BACKUPS_MAX_SOURCE_BYTES", "10")
        failed = call(db, "job_run", job_id=2)["run"]["id"]
        call(db, "job_update", job_id=2, retention_count=1)
        assert call(db, "job_prune", job_id=2)["jobs"][0]["pruned_run_ids"] == [3]
        assert call(db, "run_get", run_id=failed)["run"]["status"] == "failed"

    def test_deleting_the_newest_good_run_needs_force(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="newest good backup of job 2; pass force=true"):
            call(db, "run_delete", run_id=4)
        assert call(db, "run_delete", run_id=4, force=True)["deleted"] == {"run_id": 4}

    def test_ids_are_never_reused(self, db: Engine) -> None:
        call(db, "run_delete", run_id=3)
        assert call(db, "job_run", job_id=2)["run"]["id"] == 5
        with pytest.raises(NotFound, match=r"run 3 does not exist; list runs with backups\.run_list"):
            call(db, "run_get", run_id=3)


class TestReports:
    """Diffs, listings and storage figures read the real state."""

    def test_diff_of_the_seeded_runs(self, db: Engine) -> None:
        diff = call(db, "run_diff", from_run_id=1, to_run_id=2)
        assert diff["added"] == ["notes/meeting-2026-09-01.md"]
        assert diff["removed"] == ["invoices/INV-2026-0399-void.txt"]
        assert [c["path"] for c in diff["changed"]] == ["budget-2026.csv"]
        assert call(db, "run_diff", from_run_id=2, to_run_id=4)["same_job"] is False

    def test_lists_filter_and_name_missing_records(self, db: Engine) -> None:
        assert [r["id"] for r in call(db, "run_list", job_id=2)["runs"]] == [3, 4]
        assert call(db, "run_list", status="failed")["total"] == 0
        assert [j["id"] for j in call(db, "job_list", enabled=False)["jobs"]] == [3]
        with pytest.raises(NotFound, match="job 9 does not exist"):
            call(db, "run_list", job_id=9)
        assert [r["id"] for r in call(db, "job_get", job_id=1)["latest_runs"]] == [2, 1]

    def test_storage_counts_orphans(self, db: Engine, root: Path) -> None:
        (root / "archives/stray.tar.gz").write_bytes(b"12345")
        stats = call(db, "storage_stats")
        assert stats["orphan_files"] == [{"path": "archives/stray.tar.gz", "size": 5}]
        recorded = sum(j["archive_bytes"] for j in stats["jobs"])
        manifests = sum(p.stat().st_size for p in (root / "archives").rglob("*.manifest.json"))
        assert stats["bytes_on_disk"] == recorded + manifests + 5
        assert [j["runs"] for j in stats["jobs"]] == [2, 2, 0]

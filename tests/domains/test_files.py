"""The files domain: every capability runs on a real seeded folder, and the sandbox holds."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from facade.errors import TimedOut
from facade.kit import Conflict, Forbidden, InvalidRequest, NotFound, Unavailable, deadline

from domains.files import domain
from domains.files.seed import TREE, seed
from facade.catalogue.discovery import discover
from tests.domains.harness import SHUFFLES, DomainHarness

files = DomainHarness(domain, root_env="FACADE_FILES_ROOT")
capability = files.capability


def call(action: str, /, **args: Any) -> dict[str, Any]:
    """The domain has no tables: calls run without a database."""
    return files.call(None, action, **args)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = files.sandbox(tmp_path, monkeypatch)
    seed(None)
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A secret file and folder next to the root, which no call may reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret\n")
    return folder


class TestDeclaration:
    """The domain is declared the way the kit and the catalogue expect."""

    def test_the_package_exposes_the_domain(self) -> None:
        assert discover().domain("files") is domain
        assert domain.name == "files" and domain.default_mode == "full" and domain.migrations is None

    def test_both_tiers_are_well_stocked(self) -> None:
        tiers = [cap.tier for cap in domain.capabilities]
        assert tiers.count("core") >= 10
        assert tiers.count("full") >= 15

    def test_every_capability_has_an_example_and_a_one_sentence_description(self) -> None:
        for cap in domain.capabilities:
            assert cap.example is not None, cap.name
        files.assert_descriptions_are_one_sentence()

    def test_no_model_declares_identity_fields(self) -> None:
        files.assert_no_identity_fields()

    def test_changes_are_annotated(self) -> None:
        for name in ("delete", "bulk_delete", "write", "move", "copy", "replace_text", "archive_extract"):
            assert capability(name).annotations.destructive, name
        for cap in domain.capabilities:
            if cap.annotations.read_only:
                assert not cap.annotations.destructive, cap.name


class TestExamples:
    """Every capability's example succeeds, run in registration order or any other on a fresh seed."""

    def test_every_example_runs(self, root: Path) -> None:
        outcomes = files.assert_walk_succeeds(None)
        assert len(outcomes) == len(domain.capabilities) >= 25

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, root: Path, seed: int) -> None:
        outcomes = files.assert_walk_succeeds(None, shuffle=seed)
        assert len(outcomes) == len(domain.capabilities) >= 25

    def test_examples_touch_only_the_root(self, root: Path, outside: Path) -> None:
        for cap in domain.capabilities:
            files.run(None, cap, cap.example)
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


class TestSeed:
    """The demo tree is written once, and never over a folder that has content."""

    def test_seed_writes_the_tree(self, root: Path) -> None:
        for rel, (content, _) in TREE.items():
            data = content if isinstance(content, bytes) else content.encode()
            assert (root / rel).read_bytes() == data

    def test_seed_is_idempotent(self, root: Path) -> None:
        (root / "notes" / "todo.txt").write_text("changed")
        seed(None)
        assert (root / "notes" / "todo.txt").read_text() == "changed"

    def test_seed_leaves_a_non_empty_root_alone(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        folder = tmp_path / "mine"
        folder.mkdir()
        (folder / "keep.txt").write_text("mine")
        monkeypatch.setenv("FACADE_FILES_ROOT", str(folder))
        seed(None)
        assert [p.name for p in folder.iterdir()] == ["keep.txt"]


TRAVERSALS = ["../etc/passwd", "/../x", "a/../../x", "notes/../../x", ".."]


class TestSandboxPaths:
    """A path can name only what is inside the root."""

    @pytest.mark.parametrize("path", TRAVERSALS)
    def test_traversal_is_refused_everywhere(self, root: Path, path: str) -> None:
        for name, args in (
            ("read", {"path": path}),
            ("stat", {"path": path}),
            ("list", {"path": path}),
            ("write", {"path": path, "content": "x"}),
            ("delete", {"path": path}),
            ("mkdir", {"path": path}),
            ("copy", {"source": "notes/todo.txt", "destination": path}),
            ("move", {"source": path, "destination": "notes/x.txt"}),
        ):
            with pytest.raises(Forbidden, match=r"'\.\.'"):
                call(name, **args)

    def test_a_leading_slash_means_the_root(self, root: Path) -> None:
        assert call("read", path="/notes/todo.txt")["path"] == "notes/todo.txt"
        assert call("list", path="/")["path"] == "/"
        assert call("stat", path="//notes")["path"] == "notes"
        assert call("write", path="/etc/passwd", content="x")["path"] == "etc/passwd"
        assert (root / "etc" / "passwd").read_text() == "x"

    def test_a_nul_byte_is_refused(self, root: Path) -> None:
        with pytest.raises(Forbidden, match="NUL"):
            call("read", path="notes/todo.txt\x00.png")
        with pytest.raises(Forbidden, match="NUL"):
            call("write", path="a\x00b", content="x")

    def test_a_name_too_long_is_a_clear_error_that_hides_the_root(self, root: Path) -> None:
        for action, args in (("read", {"path": "x" * 300}), ("write", {"path": "x" * 300, "content": "x"}),
                             ("list", {"path": "x" * 300}), ("mkdir", {"path": "a/" + "x" * 300})):
            with pytest.raises(InvalidRequest, match="too long") as caught:
                call(action, **args)
            assert str(root) not in str(caught.value)

    def test_a_broken_configuration_is_reported_not_raised_raw(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "a-file").write_text("x")
        monkeypatch.setenv("FACADE_FILES_ROOT", str(tmp_path / "a-file"))
        with pytest.raises(Unavailable, match="FACADE_FILES_ROOT"):
            call("list")
        monkeypatch.setenv("FACADE_FILES_ROOT", str(tmp_path / "fine"))
        monkeypatch.setenv("FACADE_FILES_MAX_READ_BYTES", "lots")
        with pytest.raises(Unavailable, match="FACADE_FILES_MAX_READ_BYTES"):
            call("list")

    def test_the_root_itself_cannot_be_deleted_or_moved(self, root: Path) -> None:
        with pytest.raises(Forbidden, match="root"):
            call("delete", path="/", recursive=True)
        with pytest.raises(Forbidden, match="root"):
            call("move", source="/", destination="elsewhere")
        assert (root / "notes").is_dir()


class TestSandboxRoot:
    """The root, found once and kept (issue 17), is made and resolved again whenever it changes."""

    def test_a_deleted_root_is_made_again(self, root: Path) -> None:
        call("stat", path="/")
        for entry in sorted(root.rglob("*"), reverse=True):
            entry.rmdir() if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        root.rmdir()
        assert call("stat", path="/")["items"] == 0
        assert root.is_dir()

    def test_a_root_replaced_by_a_link_elsewhere_is_followed_and_still_holds(self, root: Path, outside: Path) -> None:
        call("stat", path="/")
        moved = root.with_name("moved")
        root.rename(moved)
        os.symlink(outside, root)
        assert call("read", path="secret.txt")["content"] == "top secret\n"  # the root is now `outside`
        with pytest.raises(NotFound):
            call("read", path="notes/todo.txt")
        os.unlink(root)
        moved.rename(root)
        assert call("read", path="notes/todo.txt")["path"] == "notes/todo.txt"

    def test_a_file_where_the_root_was_is_refused(self, root: Path) -> None:
        call("stat", path="/")
        root.rename(root.with_name("away"))
        root.write_text("not a folder")
        with pytest.raises(Unavailable, match="cannot be created"):
            call("stat", path="/")


class TestSandboxLinks:
    """A link whose target leaves the root is refused; walks never follow links."""

    @pytest.fixture
    def links(self, root: Path, outside: Path) -> Path:
        os.symlink(outside / "secret.txt", root / "notes" / "leak.txt")
        os.symlink(outside, root / "escape")
        os.symlink(root / "reports" / "summary.md", root / "notes" / "summary-link.md")
        return root

    @pytest.mark.parametrize(
        ("name", "args"),
        [
            ("read", {"path": "notes/leak.txt"}),
            ("stat", {"path": "notes/leak.txt"}),
            ("stat_raw", {"path": "notes/leak.txt", "follow": False}),
            ("write", {"path": "notes/leak.txt", "content": "x", "overwrite": True}),
            ("append", {"path": "notes/leak.txt", "content": "x"}),
            ("hash", {"path": "notes/leak.txt"}),
            ("tail", {"path": "notes/leak.txt"}),
            ("copy", {"source": "notes/leak.txt", "destination": "notes/copied.txt"}),
            ("delete", {"path": "notes/leak.txt"}),
            ("list", {"path": "escape"}),
            ("tree", {"path": "escape"}),
            ("write", {"path": "escape/new.txt", "content": "x"}),
            ("mkdir", {"path": "escape/sub"}),
            ("read", {"path": "escape/secret.txt"}),
            ("archive_create", {"sources": ["escape"], "destination": "out.zip"}),
        ],
    )
    def test_an_escaping_link_is_refused(self, links: Path, outside: Path, name: str, args: dict[str, Any]) -> None:
        with pytest.raises(Forbidden, match="outside the sandbox"):
            call(name, **args)
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        assert (outside / "secret.txt").read_text() == "top secret\n"

    def test_read_many_reports_the_refusal_per_file(self, links: Path) -> None:
        result = call("read_many", paths=["notes/leak.txt", "notes/todo.txt"])
        assert result["failed"] == 1
        assert "outside the sandbox" in result["files"][0]["error"]
        assert result["files"][1]["content"].startswith("# To do")

    def test_walks_do_not_follow_links(self, links: Path) -> None:
        assert call("search", contains="top secret")["total"] == 0
        assert call("grep", pattern="secret")["total"] == 0
        tree = {e["path"]: e for e in call("tree", max_depth=5)["entries"]}
        assert tree["escape"]["type"] == "link" and tree["escape"]["target"] is None
        assert "escape/secret.txt" not in tree
        assert tree["notes/summary-link.md"]["target"] == "reports/summary.md"

    def test_copying_a_folder_leaves_links_out(self, links: Path) -> None:
        result = call("copy", source="notes", destination="notes-copy")
        assert sorted(result["skipped"]) == ["notes/leak.txt", "notes/summary-link.md"]
        assert not (links / "notes-copy" / "leak.txt").exists()

    def test_archives_leave_links_out(self, links: Path) -> None:
        result = call("archive_create", sources=["notes"], destination="notes.zip")
        assert "notes/leak.txt" in result["skipped"]
        names = zipfile.ZipFile(links / "notes.zip").namelist()
        assert "notes/leak.txt" not in names and "notes/todo.txt" in names

    def test_a_link_inside_the_root_is_followed(self, links: Path) -> None:
        assert call("read", path="notes/summary-link.md")["content"].startswith("# Sales summary")


def _zip_with(root: Path, name: str, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(root / name, "w") as handle:
        for member, data in members.items():
            handle.writestr(member, data)


def _tar_with(root: Path, name: str, members: list[tarfile.TarInfo], data: bytes = b"") -> None:
    with tarfile.open(root / name, "w:gz") as handle:
        for info in members:
            handle.addfile(info, io.BytesIO(data) if info.isfile() else None)


class TestArchives:
    """Archives round-trip, and extraction stays inside its destination."""

    @pytest.mark.parametrize(
        "member", ["../evil.txt", "ok/../../evil.txt", "/abs/evil.txt", "..\\evil.txt", "C:/evil.txt"]
    )
    def test_an_escaping_zip_member_refuses_the_whole_extraction(self, root: Path, member: str) -> None:
        _zip_with(root, "bad.zip", {"fine.txt": b"fine", member: b"evil"})
        with pytest.raises(Forbidden, match="nothing was extracted"):
            call("archive_extract", path="bad.zip", destination="out")
        assert not (root / "out" / "fine.txt").exists()
        assert not (root.parent / "evil.txt").exists() and not (root / "evil.txt").exists()

    def test_an_escaping_tar_member_is_refused(self, root: Path) -> None:
        info = tarfile.TarInfo("../evil.txt")
        info.size = 4
        _tar_with(root, "bad.tar.gz", [info], b"evil")
        with pytest.raises(Forbidden, match="climbs out"):
            call("archive_extract", path="bad.tar.gz")
        assert not (root.parent / "evil.txt").exists()

    def test_a_member_through_an_escaping_link_is_refused(self, root: Path, outside: Path) -> None:
        (root / "out").mkdir()
        os.symlink(outside, root / "out" / "door")
        _zip_with(root, "sneaky.zip", {"door/planted.txt": b"x"})
        with pytest.raises(Forbidden):
            call("archive_extract", path="sneaky.zip", destination="out")
        assert not (outside / "planted.txt").exists()

    def test_tar_links_are_skipped(self, root: Path) -> None:
        link = tarfile.TarInfo("passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        plain = tarfile.TarInfo("plain.txt")
        plain.size = 5
        _tar_with(root, "links.tar.gz", [link, plain], b"plain")
        result = call("archive_extract", path="links.tar.gz", destination="x")
        assert result["skipped"] == ["passwd"] and result["files"] == 1
        assert not os.path.lexists(root / "x" / "passwd")
        assert (root / "x" / "plain.txt").read_text() == "plain"

    def test_a_tar_of_dot_extracts(self, root: Path) -> None:
        with tarfile.open(root / "dot.tar", "w") as handle:
            handle.add(root / "notes", ".")
        result = call("archive_extract", path="dot.tar", destination="dot")
        assert result["files"] == 3 and (root / "dot/todo.txt").exists()

    def test_the_extraction_limit_is_named(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        _zip_with(root, "big.zip", {"big.bin": b"0" * 5000})
        monkeypatch.setenv("FACADE_FILES_MAX_EXTRACT_BYTES", "1000")
        with pytest.raises(InvalidRequest, match="5,000 bytes, over the 1,000-byte extraction limit"):
            call("archive_extract", path="big.zip")

    def test_existing_files_need_overwrite(self, root: Path) -> None:
        call("archive_create", sources=["notes"], destination="n.tar.gz")
        call("archive_extract", path="n.tar.gz", destination="copy")
        with pytest.raises(Conflict, match="overwrite=true"):
            call("archive_extract", path="n.tar.gz", destination="copy")
        assert call("archive_extract", path="n.tar.gz", destination="copy", overwrite=True)["files"] == 3

    def test_tar_gz_round_trip_with_default_destination(self, root: Path) -> None:
        created = call("archive_create", sources=["reports", "photos/IMG_0002.png"], destination="backups/r.tgz")
        assert created["format"] == "tar.gz"
        listed = {m["name"] for m in call("archive_list", path="backups/r.tgz")["members"]}
        assert {"reports/q1-sales.csv", "IMG_0002.png"} <= listed
        result = call("archive_extract", path="backups/r.tgz")
        assert result["destination"] == "backups/r"
        assert (root / "backups/r/IMG_0002.png").read_bytes() == (root / "photos/IMG_0002.png").read_bytes()

    def test_only_named_members_are_extracted(self, root: Path) -> None:
        call("archive_create", sources=["notes"], destination="n.zip")
        call("archive_extract", path="n.zip", destination="one", members=["notes/todo.txt"])
        assert [p.name for p in (root / "one" / "notes").iterdir()] == ["todo.txt"]
        with pytest.raises(NotFound, match="files.archive_list"):
            call("archive_extract", path="n.zip", members=["nope.txt"])

    def test_a_non_archive_is_refused_clearly(self, root: Path) -> None:
        with pytest.raises(InvalidRequest, match="not a readable zip or tar archive"):
            call("archive_list", path="notes/todo.txt")

    def test_an_archive_never_contains_itself(self, root: Path) -> None:
        call("archive_create", sources=["/"], destination="all.zip")
        names = zipfile.ZipFile(root / "all.zip").namelist()
        assert "all.zip" not in names and "notes/todo.txt" in names


class TestReading:
    """Reads are bounded, partial on request, and honest about binary content."""

    def test_an_oversized_read_names_the_size_the_limit_and_the_way_out(
        self, root: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("FACADE_FILES_MAX_READ_BYTES", "100")
        with pytest.raises(InvalidRequest) as caught:
            call("read", path="reports/q1-sales.csv")
        message = str(caught.value)
        assert "187 bytes" in message and "100-byte read limit" in message
        assert "offset" in message and "length" in message

    def test_a_part_can_be_read(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_FILES_MAX_READ_BYTES", "100")
        part = call("read", path="reports/q1-sales.csv", offset=0, length=27)
        assert part["content"] == "month,product,units,revenue" and part["next_offset"] == 27
        with pytest.raises(InvalidRequest, match="100-byte read limit"):
            call("read", path="reports/q1-sales.csv", length=101)
        with pytest.raises(InvalidRequest, match="past the end"):
            call("read", path="reports/q1-sales.csv", offset=10_000)

    def test_binary_files_come_back_as_base64(self, root: Path) -> None:
        result = call("read", path="photos/IMG_0001.png")
        assert result["encoding"] == "base64"
        assert call("read", path="notes/todo.txt", encoding="base64")["encoding"] == "base64"

    def test_reading_a_folder_or_a_missing_file_says_what_to_do(self, root: Path) -> None:
        with pytest.raises(InvalidRequest, match="is a folder"):
            call("read", path="notes")
        with pytest.raises(NotFound, match="files.list"):
            call("read", path="notes/missing.txt")
        with pytest.raises(InvalidRequest, match="is a file"):
            call("list", path="notes/todo.txt")

    def test_lists_are_paginated(self, root: Path) -> None:
        first = call("list", path="/", limit=2)
        assert len(first["entries"]) == 2 and first["next_offset"] == 2
        rest = call("list", path="/", offset=first["next_offset"], limit=100)
        assert rest["next_offset"] is None
        assert first["total"] == rest["total"] == len(first["entries"]) + len(rest["entries"])

    def test_search_needs_a_criterion_and_matches_names_and_content(self, root: Path) -> None:
        with pytest.raises(InvalidRequest, match="name"):
            call("search")
        assert {m["path"] for m in call("search", name="*.PNG")["matches"]} == {
            "photos/IMG_0001.png", "photos/IMG_0002.png", "photos/IMG_0003.png"
        }
        hit = call("search", contains="BIGGER BUDGET")["matches"]
        assert [(m["path"], m["line"]) for m in hit] == [("notes/meeting-2026-03-02.md", 6)]
        assert call("search", contains="BIGGER BUDGET", case_sensitive=True)["total"] == 0


class TestWriting:
    """Changes refuse to clobber by surprise and say how to proceed."""

    def test_write_refuses_to_overwrite_unless_asked(self, root: Path) -> None:
        with pytest.raises(Conflict, match="overwrite=true"):
            call("write", path="notes/todo.txt", content="gone")
        assert call("write", path="notes/todo.txt", content="new", overwrite=True)["replaced"] is True
        assert (root / "notes/todo.txt").read_text() == "new"

    def test_write_limit_and_base64(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_FILES_MAX_WRITE_BYTES", "10")
        with pytest.raises(InvalidRequest, match="10-byte write limit"):
            call("write", path="big.txt", content="x" * 11)
        call("write", path="b.bin", content="AAEC", encoding="base64")
        assert (root / "b.bin").read_bytes() == b"\x00\x01\x02"
        with pytest.raises(InvalidRequest, match="base64"):
            call("write", path="c.bin", content="not base64!", encoding="base64")

    def test_a_file_in_the_way_of_a_folder_is_a_clear_error(self, root: Path) -> None:
        with pytest.raises((InvalidRequest, Conflict)):
            call("write", path="notes/todo.txt/inner.txt", content="x")
        with pytest.raises(Conflict, match="as a file"):
            call("mkdir", path="notes/todo.txt")

    def test_delete_needs_recursive_for_a_full_folder(self, root: Path) -> None:
        with pytest.raises(Conflict, match="recursive=true"):
            call("delete", path="notes")
        call("delete", path="notes", recursive=True)
        assert not (root / "notes").exists()
        with pytest.raises(NotFound):
            call("delete", path="notes")

    def test_delete_removes_a_link_not_its_target(self, root: Path) -> None:
        os.symlink(root / "reports" / "summary.md", root / "link.md")
        call("delete", path="link.md")
        assert (root / "reports" / "summary.md").exists() and not os.path.lexists(root / "link.md")

    def test_move_and_copy_rules(self, root: Path) -> None:
        with pytest.raises(InvalidRequest, match="inside"):
            call("move", source="notes", destination="notes/deeper")
        with pytest.raises(Conflict, match="overwrite=true"):
            call("copy", source="notes/todo.txt", destination="notes/ideas.md")
        with pytest.raises(Conflict, match="same kind"):
            call("move", source="notes/todo.txt", destination="reports", overwrite=True)
        assert call("copy", source="notes", destination="backup/notes")["files_copied"] == 3
        call("move", source="backup/notes/todo.txt", destination="backup/todo.md")
        assert (root / "backup/todo.md").exists() and not (root / "backup/notes/todo.txt").exists()

    def test_append_creates_only_when_asked(self, root: Path) -> None:
        with pytest.raises(NotFound, match="create=true"):
            call("append", path="new.log", content="x", create=False)
        call("append", path="new.log", content="a")
        call("append", path="new.log", content="b")
        assert (root / "new.log").read_text() == "ab"


class TestBulk:
    """Bulk changes report each item, and never overwrite a name."""

    def test_rename_reports_collisions_per_item(self, root: Path) -> None:
        result = call("bulk_rename", path="photos", pattern=r"IMG_\d+", replacement="same")
        statuses = [item["status"] for item in result["items"]]
        assert statuses == ["renamed", "failed", "failed"]
        assert "already exists" in result["items"][1]["reason"]
        assert (root / "photos/same.png").exists() and (root / "photos/IMG_0002.png").exists()

    def test_rename_dry_run_changes_nothing(self, root: Path) -> None:
        result = call("bulk_rename", path="photos", pattern="^IMG_", replacement="p-", dry_run=True)
        assert [i["status"] for i in result["items"]] == ["planned"] * 3 and result["done"] == 0
        assert (root / "photos/IMG_0001.png").exists()

    def test_rename_refuses_names_with_a_slash_and_bad_patterns(self, root: Path) -> None:
        result = call("bulk_rename", path="photos", pattern="^IMG_", replacement="../")
        assert result["failed"] == 3 and (root / "photos/IMG_0001.png").exists()
        with pytest.raises(InvalidRequest, match="regular expression"):
            call("bulk_rename", path="photos", pattern="(", replacement="x")
        with pytest.raises(InvalidRequest, match="groups"):
            call("bulk_rename", path="photos", pattern="IMG", replacement=r"\3")

    @pytest.mark.parametrize(
        ("pattern", "advice"),
        [(r"(a)\1", "backreferences"), (r"foo(?=bar)", "lookahead"), (r"(?<!x)y", "lookbehind"), ("(", "fix it")],
    )
    def test_patterns_run_in_linear_time_and_refusals_say_what_to_change(
        self, root: Path, pattern: str, advice: str
    ) -> None:
        """Callers' patterns run on RE2 (issue 13): a catastrophic one answers at once, and what
        RE2 lacks is refused naming the field, the missing feature and regex=false."""
        (root / "notes/evil.txt").write_text("a" * 5000 + "!\n")
        assert call("grep", path="notes/evil.txt", pattern="(a+)+$", regex=True)["total"] == 0
        with pytest.raises(NotFound):
            call("replace_text", path="notes/evil.txt", find="(a+)+$", replace="b", regex=True)
        with pytest.raises(InvalidRequest, match=f"pattern is not a regular expression.*{advice}.*regex=false"):
            call("grep", pattern=pattern, regex=True)
        with pytest.raises(InvalidRequest, match=f"find is not a regular expression.*{advice}"):
            call("replace_text", path="notes/evil.txt", find=pattern, replace="b", regex=True)
        assert call("grep", path="notes/evil.txt", pattern=pattern)["total"] == 0  # literal text: fine

    def test_a_walk_past_the_calls_deadline_stops_and_changes_nothing(self, root: Path) -> None:
        """The server's per-call deadline (facade/kit/deadline.py) stops a grep over a folder
        and a bulk delete at their next step; the delete has removed nothing."""
        before = sorted(p for p in root.rglob("*"))
        with deadline.limited(1e-9):
            end = time.monotonic() + 1e-9
            while time.monotonic() <= end:  # until it has surely passed
                pass
            with pytest.raises(TimedOut, match="narrow it"):
                call("grep", path="/", pattern="budget")
            with pytest.raises(TimedOut):
                call("bulk_delete", path="/", name="*.md", recursive=True)
        assert sorted(p for p in root.rglob("*")) == before

    def test_bulk_delete_keeps_folders_and_honours_dry_run(self, root: Path) -> None:
        planned = call("bulk_delete", path="/", name="*.md", recursive=True, dry_run=True)
        assert planned["done"] == 0 and len(planned["items"]) == sum(1 for rel in TREE if rel.endswith(".md"))
        assert call("bulk_delete", path="/", name="*", recursive=False)["items"] == []
        call("bulk_delete", path="/", name="*.md", recursive=True)
        assert call("search", name="*.md")["total"] == 0 and (root / "notes").is_dir()

    def test_replace_text_says_when_nothing_matched(self, root: Path) -> None:
        with pytest.raises(NotFound, match="does not occur"):
            call("replace_text", path="notes/todo.txt", find="nothing like this", replace="x")
        assert call("replace_text", path="notes/todo.txt", find="- [ ]", replace="- [x]")["replacements"] == 3
        regex = call("replace_text", path="notes/todo.txt", find=r"(\w+) name", replace=r"\1 NAME", regex=True)
        assert regex["replacements"] == 1 and "domain NAME" in (root / "notes/todo.txt").read_text()
        with pytest.raises(InvalidRequest, match="binary"):
            call("replace_text", path="photos/IMG_0001.png", find="PNG", replace="JPG")


class TestDigests:
    """Digests agree with hashlib, and duplicates are found by content."""

    def test_hash_and_verify(self, root: Path) -> None:
        expected = hashlib.md5((root / "notes/todo.txt").read_bytes()).hexdigest()
        assert call("hash", path="notes/todo.txt", algorithm="md5")["digest"] == expected
        assert call("verify", path="notes/todo.txt", algorithm="md5", expected=expected.upper())["matches"]
        assert not call("verify", path="notes/todo.txt", algorithm="md5", expected="0" * 32)["matches"]

    def test_duplicates_groups_identical_files(self, root: Path) -> None:
        groups = {tuple(g["paths"]) for g in call("duplicates")["groups"]}
        assert groups == {
            ("archive/todo-2025.txt", "notes/todo.txt"),
            ("photos/IMG_0001.png", "photos/IMG_0003.png"),
        }

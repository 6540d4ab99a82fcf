"""The documents domain: every capability's example succeeds in any order on a freshly
seeded database and folder (SQLite, and PostgreSQL when reachable), the sandbox holds, the
domain's rules and messages hold, and the migration builds exactly the schema of tables.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pypdf
import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.documents import domain
from domains.documents.seed import FILES
from domains.documents.tables import Document, Tag
from facade.serving.database import session_factory
from facade.kit.domain import tier_for
from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, Library, MigrationContract, count, sqlite_engine

documents = DomainHarness(domain, root_env="FACADE_DOCUMENTS_ROOT")
call, migrated, seeded = documents.call, documents.migrated, documents.seeded


# Helpers and fixtures


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return documents.template(tmp_path_factory.mktemp("documents-template"))


@pytest.fixture
def lib(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Library]:
    root = documents.sandbox(tmp_path, monkeypatch)
    with documents.copy(template, tmp_path) as engine:
        yield Library(engine, root)


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers by the shared
    criterion, every one with an example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        documents.assert_tiers(at_least=28)
        assert domain.default_mode == "full"

    def test_tiers_come_from_the_criterion(self) -> None:
        assert [c.name for c in domain.capabilities if c.tier != tier_for(c.action)] == []

    def test_descriptions_are_one_short_sentence(self) -> None:
        documents.assert_descriptions_are_one_sentence(max_length=90)

    def test_no_model_declares_identity_fields(self) -> None:
        documents.assert_no_identity_fields()

    def test_annotations(self) -> None:
        reads = {c.action for c in domain.capabilities if c.annotations.read_only}
        assert {"document_list", "document_get", "document_search", "document_read", "pdf_read", "metadata_dump"} <= reads
        assert {c.action for c in domain.capabilities if c.annotations.destructive} == {"document_delete"}


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database
    and folder, succeeds and returns JSON-friendly data."""

    def test_sqlite(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        documents.sandbox(tmp_path, monkeypatch)
        documents.assert_walk_succeeds(seeded(migrated(sqlite_engine(tmp_path / "facade.db"))))
        assert not (tmp_path / "root" / "scratch" / "old-draft.md").exists()

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
        documents.sandbox(tmp_path, monkeypatch)
        engine = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        documents.assert_walk_succeeds(engine, shuffle=seed)
        assert not (tmp_path / "root" / "scratch" / "old-draft.md").exists()

    def test_postgresql(
        self, pg_schema: Callable[[], Engine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        documents.sandbox(tmp_path, monkeypatch)
        documents.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the two documents tables."""

    harness, tables = documents, 2


class TestSeed:
    """The seed writes real, readable office files and their rows, deterministically and once."""

    def test_ids_follow_the_seed_list(self, lib: Library) -> None:
        with session_factory(lib.engine)() as session:
            paths = list(session.scalars(select(Document.path).order_by(Document.id)))
        assert paths == [f.path for f in FILES if f.registered]
        assert paths[0] == "reports/q3-board-report.docx" and paths[9] == "scratch/old-draft.md"

    def test_files_are_real_documents(self, lib: Library) -> None:
        report = docx.Document(str(lib.root / "reports/q3-board-report.docx"))
        assert report.core_properties.title == "Q3 2026 Board Report" and len(report.tables) == 1
        book = openpyxl.load_workbook(lib.root / "finance/budget-2027.xlsx")
        assert book.sheetnames == ["Summary", "Marketing", "Engineering"] and "Marketing" in book["Marketing"].tables
        assert len(pypdf.PdfReader(lib.root / "handbook/travel-policy.pdf").pages) == 3
        assert (lib.root / "inbox/supplier-quote.pdf").is_file()

    def test_seeding_twice_changes_nothing(self, lib: Library) -> None:
        (lib.root / "notes/meeting-2026-10-05.md").write_text("changed by hand")
        before = count(lib.engine, Document), count(lib.engine, Tag)
        seeded(lib.engine)
        assert (count(lib.engine, Document), count(lib.engine, Tag)) == before
        assert (lib.root / "notes/meeting-2026-10-05.md").read_text() == "changed by hand"

    def test_a_users_file_is_kept_and_indexed_as_found(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        documents.sandbox(tmp_path, monkeypatch)
        (tmp_path / "root/notes").mkdir(parents=True)
        (tmp_path / "root/notes/meeting-2026-10-05.md").write_text("# Mine\n\nkeep me\n")
        engine = seeded(migrated(sqlite_engine(tmp_path / "f.db")))
        assert (tmp_path / "root/notes/meeting-2026-10-05.md").read_text() == "# Mine\n\nkeep me\n"
        assert call(engine, "document_search", query="keep me")["results"][0]["document"]["id"] == 8


class TestSandbox:
    """No path reaches outside the documents folder, for reads and writes alike."""

    @pytest.mark.parametrize("path", ["../secret.txt", "notes/../../secret.txt", "notes/\x00.md"])
    def test_refused_paths(self, lib: Library, path: str) -> None:
        with pytest.raises(Forbidden):
            call(lib.engine, "document_read", path=path)
        with pytest.raises(Forbidden):
            call(lib.engine, "markdown_create", path=path, content="x")

    def test_absolute_paths(self, lib: Library) -> None:
        outside = lib.root.parent / "secret.md"
        outside.write_text("secret")
        with pytest.raises(Forbidden, match="outside the documents root"):
            call(lib.engine, "document_read", path=str(outside))
        inside = call(lib.engine, "document_read", path=str(lib.root / "notes/meeting-2026-10-05.md"))
        assert inside["path"] == "notes/meeting-2026-10-05.md"

    def test_symlink_escape(self, lib: Library) -> None:
        (lib.root.parent / "elsewhere").mkdir()
        (lib.root.parent / "elsewhere/plan.md").write_text("hidden")
        (lib.root / "link").symlink_to(lib.root.parent / "elsewhere")
        with pytest.raises(Forbidden, match="symbolic link"):
            call(lib.engine, "document_read", path="link/plan.md")
        with pytest.raises(Forbidden):
            call(lib.engine, "csv_create", path="link/new.csv", rows=[["a"]])
        assert sorted(p.name for p in (lib.root.parent / "elsewhere").iterdir()) == ["plan.md"]
        imported = call(lib.engine, "folder_import", folder="")
        assert all(not d["path"].startswith("link/") for d in imported["imported"])


class TestReading:
    """Reads return the structure of each format and refuse what does not fit."""

    def test_long_text_is_read_in_parts(self, lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
        whole = call(lib.engine, "document_read", path="handbook/travel-policy.pdf")
        monkeypatch.setenv("FACADE_DOCUMENTS_MAX_TEXT_CHARS", "100")
        parts, offset = [], 0
        while offset is not None:
            part = call(lib.engine, "document_read", path="handbook/travel-policy.pdf", offset=offset)
            parts.append(part["text"])
            offset = part["next_offset"]
        assert len(parts) > 3 and "".join(parts) == whole["text"]
        assert whole["parts"] == ["page 1", "page 2", "page 3"]

    def test_docx_structure(self, lib: Library) -> None:
        blocks = call(lib.engine, "docx_read", path="reports/q3-board-report.docx")["blocks"]
        assert {"kind": "heading", "level": 1, "text": "Summary"} in blocks
        table = next(b for b in blocks if b["kind"] == "table")
        assert table["rows"][0] == ["Metric", "Q3 2025", "Q3 2026"] and len(table["rows"]) == 5
        assert any(b["kind"] == "bullet" and "churn" in b["text"] for b in blocks)

    def test_sheet_by_table_and_range(self, lib: Library) -> None:
        table = call(lib.engine, "sheet_read", path="sales/q3-sales.xlsx", table="orders")
        assert table["header"] == ["Order", "Date", "Customer", "Region", "Amount"]
        assert table["total"] == 6 and table["rows"][0][:2] == ["SO-1041", "2026-07-03T00:00:00"]
        cells = call(lib.engine, "sheet_read", path="finance/budget-2027.xlsx", range="B2:C3")
        assert cells["sheet"] == "Summary" and cells["rows"] == [[120000, 130000], [410000, 420000]]

    def test_sheet_errors_name_the_way_out(self, lib: Library) -> None:
        with pytest.raises(NotFound, match="its sheets are Summary, Marketing, Engineering"):
            call(lib.engine, "sheet_read", path="finance/budget-2027.xlsx", sheet="Sales")
        with pytest.raises(NotFound, match="its tables are Marketing"):
            call(lib.engine, "sheet_read", path="finance/budget-2027.xlsx", table="Costs")
        with pytest.raises(InvalidRequest, match="outside a sheet's A1:XFD1048576"):
            call(lib.engine, "sheet_read", path="finance/budget-2027.xlsx", range="A1:B9999999")
        with pytest.raises(InvalidRequest, match="over 500 columns"):
            call(lib.engine, "sheet_read", path="finance/budget-2027.xlsx", range="A1:ZZ2")
        with pytest.raises(InvalidRequest, match="range or table, not both"):
            call(lib.engine, "sheet_read", path="finance/budget-2027.xlsx", table="Marketing", range="A1:B2")

    def test_pdf_page_bounds(self, lib: Library) -> None:
        pages = call(lib.engine, "pdf_read", path="handbook/travel-policy.pdf", first_page=3)["pages"]
        assert [p["number"] for p in pages] == [3] and "30 days" in pages[0]["text"]
        with pytest.raises(InvalidRequest, match="has 3 pages"):
            call(lib.engine, "pdf_read", path="handbook/travel-policy.pdf", first_page=4)
        with pytest.raises(InvalidRequest, match="comes before"):
            call(lib.engine, "pdf_read", path="handbook/travel-policy.pdf", first_page=3, last_page=2)

    def test_wrong_kind_missing_file_and_damaged_file(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match=r"is a \.pdf file; this tool reads \.docx"):
            call(lib.engine, "docx_read", path="handbook/travel-policy.pdf")
        with pytest.raises(NotFound, match="does not exist"):
            call(lib.engine, "document_read", path="reports/q4.docx")
        (lib.root / "reports/broken.docx").write_bytes(b"not a zip at all")
        with pytest.raises(InvalidRequest, match=r"not a readable \.docx file"):
            call(lib.engine, "document_add", path="reports/broken.docx")
        with pytest.raises(InvalidRequest, match="not a document this domain reads"):
            (lib.root / "photo.png").write_bytes(b"\x89PNG")
            call(lib.engine, "document_read", path="photo.png")


class TestCreating:
    """Creates write real files, register them, and never overwrite unless told."""

    def test_created_documents_are_indexed(self, lib: Library) -> None:
        made = call(lib.engine, "docx_create", path="drafts/plan.docx", blocks=[{"text": "Zebra crossing survey"}])
        assert made["document"]["id"] == 11 and made["document"]["kind"] == "docx"
        assert call(lib.engine, "document_search", query="zebra")["results"][0]["document"]["id"] == 11

    def test_existing_files_need_overwrite(self, lib: Library) -> None:
        with pytest.raises(Conflict, match="already exists; pass overwrite=true"):
            call(lib.engine, "markdown_create", path="notes/meeting-2026-10-05.md", content="# New")
        again = call(lib.engine, "markdown_create", path="notes/meeting-2026-10-05.md", content="# New", overwrite=True)
        assert again["document"]["id"] == 8 and again["document"]["word_count"] == 1

    def test_suffix_must_match(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match=r"must end in \.xlsx"):
            call(lib.engine, "xlsx_create", path="drafts/plan.csv", sheets=[{"name": "A", "rows": [[1]]}])
        assert not (lib.root / "drafts").exists()

    def test_pdf_reports_replaced_characters(self, lib: Library) -> None:
        made = call(lib.engine, "pdf_create", path="drafts/price.pdf", text="Only 5€ — today")
        assert made["replaced_characters"] == 2
        assert "Only 5EUR - today" in call(lib.engine, "document_read", path="drafts/price.pdf")["text"]

    def test_control_characters_are_refused(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match=r"control characters a \.docx file cannot store"):
            call(lib.engine, "docx_create", path="drafts/bad.docx", blocks=[{"text": "bell\x07"}])
        with pytest.raises(InvalidRequest, match=r"control characters a \.xlsx file cannot store"):
            call(lib.engine, "sheet_append", path="sales/q3-sales.xlsx", rows=[["nul\x00"]])
        assert not (lib.root / "drafts/bad.docx").exists()

    def test_sheet_names_must_differ(self, lib: Library) -> None:
        with pytest.raises(Conflict, match="two sheets share a name"):
            call(lib.engine, "xlsx_create", path="drafts/x.xlsx", sheets=[{"name": "Q1", "rows": [[1]]}, {"name": "q1", "rows": [[2]]}])

    def test_append_grows_the_table_below_it(self, lib: Library) -> None:
        result = call(lib.engine, "sheet_append", path="sales/q3-sales.xlsx", sheet="Orders",
                      rows=[["SO-1047", "2026-09-30", "Bramble & Co", "South", 5100]])
        assert result["appended_rows"] == 1 and not result["sheet_created"]
        sheets = call(lib.engine, "sheet_list", path="sales/q3-sales.xlsx")["sheets"]
        assert sheets[0]["tables"] == [{"name": "Orders", "range": "A1:E8"}]
        assert call(lib.engine, "sheet_append", path="sales/q3-sales.xlsx", sheet="Q4", rows=[["x"]])["sheet_created"]

    def test_docx_append_keeps_the_body(self, lib: Library) -> None:
        call(lib.engine, "docx_append", path="policies/remote-work-policy.docx", blocks=[{"text": "Review yearly.", "style": "bullet"}])
        blocks = call(lib.engine, "docx_read", path="policies/remote-work-policy.docx")["blocks"]
        assert blocks[0]["text"] == "Remote Work Policy" and blocks[-1] == {"kind": "bullet", "text": "Review yearly."}


class TestConvertAndCompare:
    """Conversions write real files of the target kind; comparisons diff the text."""

    def test_docx_to_markdown(self, lib: Library) -> None:
        made = call(lib.engine, "document_convert", path="reports/q3-board-report.docx", to="md")
        text_md = (lib.root / made["document"]["path"]).read_text()
        assert made["document"]["path"] == "reports/q3-board-report.md"
        assert "# Summary" in text_md and "| Metric | Q3 2025 | Q3 2026 |" in text_md

    def test_csv_to_xlsx_keeps_numbers(self, lib: Library) -> None:
        call(lib.engine, "document_convert", path="data/customers.csv", to="xlsx")
        rows = call(lib.engine, "sheet_read", path="data/customers.xlsx")["rows"]
        assert rows[1] == ["C-1001", "Harbour Freight Group", "Hull", "Enterprise", 8400.0]

    def test_unsupported_target(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match=r"a \.pdf file converts to txt or md, not csv"):
            call(lib.engine, "document_convert", path="handbook/travel-policy.pdf", to="csv")

    def test_compare(self, lib: Library) -> None:
        same = call(lib.engine, "document_compare", path_a="data/customers.csv", path_b="data/customers.csv")
        assert same["identical"] and same["similarity"] == 1.0 and same["diff"] == []
        diff = call(lib.engine, "document_compare", path_a="notes/meeting-2026-10-05.md", path_b="notes/meeting-2026-10-12.md")
        assert "+- Sam joins the data platform team." in diff["diff"] and 0 < diff["similarity"] < 1


class TestPdfPages:
    """Merging and splitting keep every page and write nothing when a part cannot be written."""

    def test_merge(self, lib: Library) -> None:
        merged = call(lib.engine, "pdf_merge", paths=["handbook/travel-policy.pdf", "contracts/nda-northwind.pdf"], dest="all.pdf")
        assert merged["document"]["page_count"] == 5 and len(pypdf.PdfReader(lib.root / "all.pdf").pages) == 5

    def test_split_checks_every_range_first(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match="pages 1-3"):
            call(lib.engine, "pdf_split", path="handbook/travel-policy.pdf", ranges=["1", "4"])
        (lib.root / "handbook/travel-policy-p2-3.pdf").write_bytes(b"mine")
        with pytest.raises(Conflict):
            call(lib.engine, "pdf_split", path="handbook/travel-policy.pdf", ranges=["1", "2-3"])
        assert not (lib.root / "handbook/travel-policy-p1.pdf").exists()
        parts = call(lib.engine, "pdf_split", path="handbook/travel-policy.pdf", ranges=["3-3", "1-2"], folder="split")["parts"]
        assert [(p["path"], p["page_count"]) for p in parts] == [("split/travel-policy-p3.pdf", 1), ("split/travel-policy-p1-2.pdf", 2)]


class TestTags:
    """Tags are normalised, unique per document, and renamed or merged across the library."""

    def test_normalised_and_validated(self, lib: Library) -> None:
        assert call(lib.engine, "tag_add", document_id=2, tags=["  Remote   Work ", "hr"])["added"] == ["remote work"]
        with pytest.raises(ValidationError, match="a tag is letters"):
            call(lib.engine, "tag_add", document_id=2, tags=["#urgent"])

    def test_remove_missing_tag(self, lib: Library) -> None:
        with pytest.raises(NotFound, match="document 2 has no tag 'legal'; its tags are: hr, policy"):
            call(lib.engine, "tag_remove", document_id=2, tag="legal")

    def test_rename_merges(self, lib: Library) -> None:
        call(lib.engine, "tag_add", document_id=1, tags=["money"])
        result = call(lib.engine, "tag_rename", old="finance", new="money")
        assert (result["renamed"], result["merged"]) == (1, 1)
        assert [t["name"] for t in call(lib.engine, "tag_list", prefix="mon")["tags"]] == ["money"]
        assert call(lib.engine, "document_list", tag="money")["total"] == 2
        with pytest.raises(NotFound, match="no document carries the tag 'finance'"):
            call(lib.engine, "tag_rename", old="finance", new="money")

    def test_bulk_reports_each(self, lib: Library) -> None:
        result = call(lib.engine, "tag_bulk_add", document_ids=[1, 99], tag="board")
        assert result["results"] == [{"document_id": 1, "added": False}, {"document_id": 99, "error": "document 99 does not exist"}]


class TestCatalogueRules:
    """Registration, search, listing and deletion keep the index true to the folder."""

    def test_register_twice(self, lib: Library) -> None:
        with pytest.raises(Conflict, match="is already document 1"):
            call(lib.engine, "document_add", path="reports/q3-board-report.docx")

    def test_search_ranks_titles_and_escapes_wildcards(self, lib: Library) -> None:
        hits = call(lib.engine, "document_search", query="Budget")["results"]
        assert [h["document"]["id"] for h in hits] == [3, 5] and "budget holder" in hits[1]["snippet"]
        assert call(lib.engine, "document_search", query="2_26")["total"] == 0

    def test_list_by_folder_and_kind(self, lib: Library) -> None:
        assert [d["id"] for d in call(lib.engine, "document_list", folder="notes")["documents"]] == [8, 9]
        assert call(lib.engine, "document_list", kind="pdf")["total"] == 2
        with pytest.raises(NotFound, match="document 404 does not exist; list documents with documents.document_list"):
            call(lib.engine, "document_get", document_id=404)

    def test_delete_keeps_or_removes_the_file(self, lib: Library) -> None:
        assert call(lib.engine, "document_delete", document_id=9)["file_deleted"] is False
        assert (lib.root / "notes/meeting-2026-10-12.md").exists()
        assert call(lib.engine, "document_delete", document_id=8, delete_file=True)["file_deleted"] is True
        assert not (lib.root / "notes/meeting-2026-10-05.md").exists()
        assert count(lib.engine, Tag, Tag.document_id.in_([8, 9])) == 0
        assert call(lib.engine, "markdown_create", path="n.md", content="x")["document"]["id"] == 11

    def test_update_refuses_null_title(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match="title cannot be null"):
            call(lib.engine, "document_update", document_id=1, title=None)


class TestMaintenance:
    """Reindexing and importing follow the folder and report each file's fate."""

    def test_reindex_sees_changes_and_missing_files(self, lib: Library) -> None:
        (lib.root / "notes/meeting-2026-10-05.md").write_text("# Short\n\nNow two words.\n")
        (lib.root / "notes/meeting-2026-10-12.md").unlink()
        result = call(lib.engine, "document_reindex")
        assert result["changed"] == 1 and result["failed"] == 1
        assert "is gone; delete the record" in next(r["error"] for r in result["results"] if "error" in r)
        assert call(lib.engine, "document_get", document_id=8)["document"]["word_count"] == 4

    def test_import_reports_each_file(self, lib: Library) -> None:
        (lib.root / "inbox/logo.png").write_bytes(b"\x89PNG")
        (lib.root / "inbox/broken.xlsx").write_bytes(b"garbage")
        (lib.root / "inbox/.hidden.md").write_text("skip me")
        result = call(lib.engine, "folder_import", folder="inbox")
        assert sorted(d["path"] for d in result["imported"]) == ["inbox/expenses-october.csv", "inbox/supplier-quote.pdf"]
        assert result["unsupported"] == 1 and [f["path"] for f in result["failed"]] == ["inbox/broken.xlsx"]

    def test_a_file_with_nul_bytes_imports_on_postgresql(
        self, pg_schema: Callable[[], Engine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """PostgreSQL text cannot hold NUL, which text files and PDFs do carry: the index drops it
        rather than refuse the whole import (which read as the caller's fault, 2026-12-02)."""
        root = documents.sandbox(tmp_path, monkeypatch)
        engine = seeded(migrated(pg_schema()))
        (root / "inbox/padded.txt").write_bytes(b"hello\x00world\n")
        (root / "inbox/titled.md").write_bytes(b"# Ti\x00tle\n\nbody\x00\n")
        result = call(engine, "folder_import", folder="inbox")
        assert {"inbox/padded.txt", "inbox/titled.md"} <= {d["path"] for d in result["imported"]}, result
        found = call(engine, "document_search", query="helloworld")
        assert [r["document"]["path"] for r in found["results"]] == ["inbox/padded.txt"], found

    def test_stats_and_export(self, lib: Library) -> None:
        stats = call(lib.engine, "library_stats")
        assert stats["documents"] == 10 and {k["kind"]: k["documents"] for k in stats["by_kind"]}["pdf"] == 2
        exported = call(lib.engine, "document_export", format="csv", tag="hr")["data"].splitlines()
        assert len(exported) == 3 and exported[1].startswith("2,policies/remote-work-policy.docx")

    def test_metadata_dump_reads_the_file(self, lib: Library) -> None:
        dump = call(lib.engine, "metadata_dump", path="finance/budget-2027.xlsx")
        assert dump["metadata"]["sheets"] == ["Summary", "Marketing", "Engineering"]
        assert dump["record"]["id"] == 3 and dump["file"]["sha256"] == dump["record"]["sha256"]
        word = call(lib.engine, "word_count", path="sales/q3-sales.xlsx")
        assert [p["part"] for p in word["parts"]] == ["Orders", "By region"]


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("document_list", {"limit": 500}),
            ("document_get", {"document_id": 0}),
            ("sheet_read", {"path": "a.xlsx", "range": "A1:"}),
            ("pdf_split", {"path": "a.pdf", "ranges": ["1-x"]}),
            ("xlsx_create", {"path": "a.xlsx", "sheets": [{"name": "a/b", "rows": [[1]]}]}),
            ("document_convert", {"path": "a.docx", "to": "pdf"}),
            ("document_add", {"path": "a.md", "auth_token": "x"}),
        ],
    )
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        cap = next(c for c in domain.capabilities if c.action == action)
        with pytest.raises(ValidationError):
            cap.input_model.model_validate(args)

    def test_errors_are_domain_errors(self, lib: Library) -> None:
        with pytest.raises(DomainError) as raised:
            call(lib.engine, "document_read", path="nowhere/x.md")
        assert str(raised.value) == "not found: nowhere/x.md does not exist; list the documents with documents.document_list"

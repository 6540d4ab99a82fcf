"""The demo archives the seeds unpack (issue 17): each was made from its seed's sources as they
are today, holds every demo file the seed writes, and ships the text the index would read."""

from __future__ import annotations

import importlib
import io
import json
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from domains.documents.extract import extract
from facade.kit import MADE_FROM, archive_digest, source_digest

SEEDS = [importlib.import_module(f"domains.{name}.seed") for name in ("documents", "photos")]
REGENERATE = "out of date: run python scripts/demo_files.py and commit the archive"


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.__name__.split(".")[1])
class TestArchives:
    """A shipped archive is current and complete."""

    def test_it_was_made_from_todays_sources(self, seed: ModuleType) -> None:
        # Not byte equality with a new build: that would fail on every release of a writer library.
        assert archive_digest(seed.ARCHIVE) == source_digest(seed.SOURCES), f"{seed.ARCHIVE} {REGENERATE}"

    def test_a_new_build_holds_the_same_files(self, seed: ModuleType) -> None:
        with zipfile.ZipFile(seed.ARCHIVE) as shipped, zipfile.ZipFile(io.BytesIO(seed.archive())) as built:
            assert sorted(shipped.namelist()) == sorted(built.namelist())
            assert built.read(MADE_FROM) == shipped.read(MADE_FROM)

    def test_it_holds_every_file_the_seed_writes(self, seed: ModuleType) -> None:
        listed = {item.path for item in getattr(seed, "FILES", None) or seed.PHOTOS if not getattr(item, "copy_of", None)}
        with zipfile.ZipFile(seed.ARCHIVE) as archive:
            assert listed <= set(archive.namelist())
            assert archive.testzip() is None  # every member's CRC holds


class TestDocumentsIndex:
    """The text shipped for each registered document is what the index extracts from its file."""

    def test_the_shipped_text_is_the_extracted_text(self, tmp_path: Path) -> None:
        documents = SEEDS[0]
        with zipfile.ZipFile(documents.ARCHIVE) as archive:
            index = json.loads(archive.read(documents.INDEX))
            registered = [item.path for item in documents.FILES if item.registered]
            assert sorted(index) == sorted(registered)
            for path in registered:
                real = tmp_path / path
                real.parent.mkdir(parents=True, exist_ok=True)
                real.write_bytes(archive.read(path))
                found = extract(real, path)
                shipped = index[path]
                assert (shipped["kind"], shipped["title"], shipped["page_count"]) == (found.kind, found.title, found.page_count)
                assert [tuple(p) for p in shipped["parts"]] == found.parts, path


class TestReadable:
    """The office files inside open in the readers a user has (a zip inside a zip stays valid)."""

    def test_office_files_are_valid_zips(self) -> None:
        with zipfile.ZipFile(SEEDS[0].ARCHIVE) as archive:
            office = [n for n in archive.namelist() if n.endswith((".docx", ".xlsx"))]
            assert office
            for name in office:
                with zipfile.ZipFile(io.BytesIO(archive.read(name))) as inner:
                    assert inner.testzip() is None and "[Content_Types].xml" in inner.namelist()

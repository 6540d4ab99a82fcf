"""Input models of the documents capabilities. A path is relative to the documents root; that
rule lives in TOOLS.md, never in a field description repeated on every tool."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from facade.kit import Id, Input, Page, TagName

from domains.documents.tables import Kind


# No max_length on paths: the filesystem refuses an over-long name itself, with a clear error.
FilePath = Annotated[str, Field(min_length=1)]
Title = Annotated[str, Field(min_length=1, max_length=200)]
Cell = str | int | float | bool | None
Rows = Annotated[list[list[Cell]], Field(min_length=1, max_length=10_000)]
CellRange = Annotated[str, Field(pattern=r"^[A-Za-z]{1,3}[0-9]{1,7}(:[A-Za-z]{1,3}[0-9]{1,7})?$")]


class PathArg(Input):
    path: FilePath


# Catalogue


class DocumentFilter(Page):
    kind: Kind | None = None
    tag: TagName | None = None
    folder: str | None = Field(default=None, description="Only documents under this folder.")


class DocumentSearch(Page):
    query: str = Field(min_length=1, max_length=200)
    kind: Kind | None = None
    tag: TagName | None = None


class DocumentAdd(Input):
    path: FilePath
    title: Title | None = Field(default=None, description="Default: the file's own title, else its name.")
    notes: str = Field(default="", max_length=10_000)
    tags: list[TagName] = Field(default_factory=list, max_length=20)


class DocumentUpdate(Input):
    document_id: Id
    title: Title | None = None
    notes: str | None = Field(default=None, max_length=10_000)


class DocumentDelete(Input):
    document_id: Id
    delete_file: bool = Field(default=False, description="Also delete the file; by default only its record goes.")


# Reading


class DocumentRead(Input):
    path: FilePath
    offset: int = Field(default=0, ge=0, description="Character to start at, for text longer than one read.")


class DocxRead(Page):
    path: FilePath


class SheetRead(Input):
    path: FilePath
    sheet: str | None = Field(default=None, max_length=31, description="Default: the first sheet.")
    range: CellRange | None = Field(default=None, description="e.g. 'A1:D20'; default: the used range.")
    table: str | None = Field(default=None, max_length=255, description="An Excel table's name, instead of range.")
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


class PdfRead(Input):
    path: FilePath
    first_page: int = Field(default=1, ge=1)
    last_page: int | None = Field(default=None, ge=1)


# Creating


class BlockIn(Input):
    text: str = Field(min_length=1, max_length=20_000)
    style: Literal["heading1", "heading2", "heading3", "paragraph", "bullet"] = "paragraph"


class DocxCreate(Input):
    path: FilePath
    title: Title | None = None
    blocks: list[BlockIn] = Field(min_length=1, max_length=1000)
    table: list[list[str]] | None = Field(default=None, max_length=500, description="Rows; the first is the header.")
    tags: list[TagName] = Field(default_factory=list, max_length=20)
    overwrite: bool = False


class SheetIn(Input):
    name: str = Field(min_length=1, max_length=31, pattern=r"^[^\[\]:*?/\\]+$")
    rows: Rows
    as_table: bool = Field(default=False, description="Format as an Excel table; the first row is the header.")


class XlsxCreate(Input):
    path: FilePath
    sheets: list[SheetIn] = Field(min_length=1, max_length=50)
    tags: list[TagName] = Field(default_factory=list, max_length=20)
    overwrite: bool = False


class PdfCreate(Input):
    path: FilePath
    title: Title | None = None
    text: str = Field(
        min_length=1,
        max_length=500_000,
        description="Paragraphs split by blank lines; '# ' starts a heading; a form feed starts a page.",
    )
    tags: list[TagName] = Field(default_factory=list, max_length=20)
    overwrite: bool = False


class CsvCreate(Input):
    path: FilePath
    rows: Rows
    tags: list[TagName] = Field(default_factory=list, max_length=20)
    overwrite: bool = False


class MarkdownCreate(Input):
    path: FilePath
    content: str = Field(min_length=1, max_length=1_000_000)
    tags: list[TagName] = Field(default_factory=list, max_length=20)
    overwrite: bool = False


class SheetAppend(Input):
    path: FilePath
    sheet: str | None = Field(default=None, max_length=31, description="Default: the first sheet; a new name adds a sheet.")
    rows: Rows


class DocxAppend(Input):
    path: FilePath
    blocks: list[BlockIn] = Field(min_length=1, max_length=1000)


# Tags


class TagAdd(Input):
    document_id: Id
    tags: list[TagName] = Field(min_length=1, max_length=20)


class TagRemove(Input):
    document_id: Id
    tag: TagName


class TagList(Page):
    prefix: str | None = Field(default=None, max_length=50)


class TagBulkAdd(Input):
    document_ids: list[Id] = Field(min_length=1, max_length=200)
    tag: TagName


class TagRename(Input):
    old: TagName
    new: TagName


# Analysis, conversion, PDFs


class Compare(Input):
    path_a: FilePath
    path_b: FilePath
    context: int = Field(default=3, ge=0, le=20, description="Unchanged lines shown around each change.")
    max_lines: int = Field(default=200, ge=1, le=2000)


class Convert(Input):
    path: FilePath
    to: Literal["txt", "md", "csv", "xlsx"]
    dest: FilePath | None = Field(default=None, description="Default: beside the source, with the new extension.")
    sheet: str | None = Field(default=None, max_length=31, description="Sheet of an .xlsx source; default the first.")
    overwrite: bool = False


class PdfMerge(Input):
    paths: list[FilePath] = Field(min_length=2, max_length=50)
    dest: FilePath
    overwrite: bool = False


class PdfSplit(Input):
    path: FilePath
    ranges: list[Annotated[str, Field(pattern=r"^\d{1,5}(-\d{1,5})?$")]] = Field(
        min_length=1, max_length=100, description="Page ranges, one file each, e.g. ['1-2', '3']."
    )
    folder: str | None = Field(default=None, description="Where the parts go; default: beside the source.")
    overwrite: bool = False


# Maintenance


class Reindex(Input):
    document_id: Id | None = Field(default=None, description="Default: every document.")


class FolderImport(Input):
    folder: str = ""
    recursive: bool = True


class Stats(Input):
    pass


class Export(Input):
    format: Literal["json", "csv"] = "json"
    tag: TagName | None = None

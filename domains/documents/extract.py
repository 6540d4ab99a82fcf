"""Opening office files and getting their text out: the one place that knows each format.

Every text the domain indexes, searches, counts, compares or converts comes from `extract`, so
that a .docx reads the same in a search snippet, a word count and a markdown conversion."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from facade.kit import InvalidRequest, importing

from domains.documents.errors import parsing
from domains.documents.sandbox import read_bytes
from domains.documents.settings import settings

# The format libraries are imported by the functions that open each format (see writers.py).
if TYPE_CHECKING:
    import pypdf
    from docx.document import Document as DocxDocument
    from docx.text.paragraph import Paragraph
    from openpyxl.workbook.workbook import Workbook

SUFFIXES: dict[str, str] = {
    ".docx": "docx", ".xlsx": "xlsx", ".pdf": "pdf", ".csv": "csv", ".md": "md", ".markdown": "md", ".txt": "txt",
}
WORD = re.compile(r"\w+(?:['’-]\w+)*")


def count_words(text: str) -> int:
    return len(WORD.findall(text))


def kind_of(real: Path, given: str) -> str:
    """The document kind its suffix names, or a refusal listing the kinds this domain reads."""
    kind = SUFFIXES.get(real.suffix.lower())
    if kind is None:
        known = ", ".join(sorted(SUFFIXES))
        raise InvalidRequest(f"{given} is not a document this domain reads; give a file ending in one of {known}")
    return kind


def need_kind(real: Path, given: str, *kinds: str) -> str:
    kind = kind_of(real, given)
    if kind not in kinds:
        wanted = " or ".join(f".{k}" for k in kinds)
        raise InvalidRequest(f"{given} is a .{kind} file; this tool reads {wanted} files")
    return kind


def load_bytes(real: Path, given: str) -> bytes:
    return read_bytes(real, given, limit=settings().max_file_bytes, purpose="for opening a document")


def open_docx(real: Path, given: str) -> DocxDocument:
    with importing():
        import docx

    data = load_bytes(real, given)
    with parsing(given, "docx"):
        return docx.Document(io.BytesIO(data))


def open_xlsx(real: Path, given: str, *, editing: bool = False) -> Workbook:
    """A workbook whose formulas read as the values Excel cached when it last saved the file;
    with editing=True the formulas themselves, so that saving it keeps them."""
    with importing():
        import openpyxl

    data = load_bytes(real, given)
    with parsing(given, "xlsx"):
        return openpyxl.load_workbook(io.BytesIO(data), data_only=not editing)


def open_pdf(real: Path, given: str) -> pypdf.PdfReader:
    with importing():
        import pypdf

    data = load_bytes(real, given)
    with parsing(given, "pdf"):
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InvalidRequest(f"{given} is password-protected; this domain reads only unprotected PDFs")
        return reader


def read_text_file(real: Path, given: str) -> str:
    data = load_bytes(real, given)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # every byte decodes: old spreadsheets export CSV this way


# Word documents, as a sequence of blocks in body order.


@dataclass
class Block:
    """A heading (level 1-9, 0 for the title), paragraph, bullet or table of a .docx body."""

    kind: str
    text: str = ""
    level: int = 0
    rows: list[list[str]] = field(default_factory=list)


def docx_blocks(document: DocxDocument) -> list[Block]:
    with importing():
        from docx.table import Table
        from docx.text.paragraph import Paragraph

    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            blocks.append(Block("table", rows=[[cell.text.strip() for cell in row.cells] for row in item.rows]))
        elif isinstance(item, Paragraph) and item.text.strip():
            blocks.append(_paragraph_block(item))
    return blocks


def _paragraph_block(paragraph: Paragraph) -> Block:
    style = paragraph.style.name if paragraph.style is not None else ""
    text = paragraph.text.strip()
    if style == "Title":
        return Block("heading", text, 0)
    if style.startswith("Heading ") and style[8:].isdigit():
        return Block("heading", text, int(style[8:]))
    if style.startswith("List"):
        return Block("bullet", text)
    return Block("paragraph", text)


def blocks_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if block.kind == "heading":
            out.append("#" * max(block.level, 1) + " " + block.text)
        elif block.kind == "bullet":
            out.append("- " + block.text)
        elif block.kind == "table":
            out.append(markdown_table(block.rows))
        else:
            out.append(block.text)
    return "\n\n".join(out) + "\n"


def blocks_text(blocks: list[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if block.kind == "table":
            out.append("\n".join("\t".join(row) for row in block.rows))
        else:
            out.append(("- " if block.kind == "bullet" else "") + block.text)
    return "\n\n".join(out) + "\n"


def markdown_table(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    cells = [[c.replace("|", "\\|").replace("\n", " ") for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines)


# Spreadsheets.


def cell_value(value: Any) -> Any:
    """A cell as JSON: numbers and text as they are, dates as ISO strings."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def sheet_text(rows: list[list[Any]]) -> str:
    return "\n".join("\t".join("" if v is None else str(v) for v in row) for row in rows if any(v is not None for v in row))


def all_rows(sheet: Any) -> list[list[Any]]:
    return [[cell_value(v) for v in row] for row in sheet.iter_rows(values_only=True)]


# Everything as text.


@dataclass
class Extracted:
    """A document's text in parts: the pages of a PDF, the sheets of a workbook, else one body."""

    kind: str
    parts: list[tuple[str, str]]
    title: str | None = None
    page_count: int | None = None

    def __post_init__(self) -> None:
        # Text files and PDFs carry NUL bytes; no reader wants them, and PostgreSQL's text
        # cannot hold them, so one such file would fail a whole folder_import.
        self.parts = [(label, body.replace("\x00", "")) for label, body in self.parts]
        self.title = (self.title or "").replace("\x00", "") or None

    @property
    def text(self) -> str:
        if len(self.parts) == 1:
            return self.parts[0][1]
        return "\n\n".join(f"[{label}]\n{body}" for label, body in self.parts)


def extract(real: Path, given: str, *, markdown: bool = True) -> Extracted:
    """The text of any document this domain reads; a .docx as markdown unless told otherwise."""
    kind = kind_of(real, given)
    if kind == "docx":
        document = open_docx(real, given)
        with parsing(given, kind):
            blocks = docx_blocks(document)
            body = blocks_markdown(blocks) if markdown else blocks_text(blocks)
            return Extracted(kind, [("body", body)], document.core_properties.title or None)
    if kind == "xlsx":
        book = open_xlsx(real, given)
        with parsing(given, kind):
            parts = [(sheet.title, sheet_text(all_rows(sheet))) for sheet in book.worksheets]
            return Extracted(kind, parts or [("body", "")], book.properties.title or None)
    if kind == "pdf":
        reader = open_pdf(real, given)
        with parsing(given, kind):
            pages = [(f"page {n}", (page.extract_text() or "").strip()) for n, page in enumerate(reader.pages, 1)]
            title = (reader.metadata or {}).get("/Title")
            return Extracted(kind, pages or [("body", "")], str(title) if title else None, len(pages))
    return Extracted(kind, [("body", read_text_file(real, given))])


def csv_rows(text: str) -> list[list[str]]:
    """Rows of a CSV text, in whatever dialect it was written (comma, semicolon or tab)."""
    try:
        dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    return [row for row in csv.reader(io.StringIO(text), dialect) if row]

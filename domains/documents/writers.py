"""Making office files: the bytes of a new .docx, .xlsx, .pdf or .csv, and the one way a file
lands in the sandbox. The capabilities and the seed both build their files here."""

from __future__ import annotations

import csv
import io
import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from facade.kit import InvalidRequest, importing

# The office libraries are imported by the functions that use them: at module level they were
# ~1 s of every server's start-up (issue 14), for tools most conversations never call.
if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

AUTHOR = "Facade"
Cell = str | int | float | bool | date | datetime | None

# fpdf2's built-in fonts cover Latin-1 only, and a bundled Unicode font would tie the output to
# a font file on this machine; typographic characters get plain equivalents instead.
PDF_SUBSTITUTES = {
    "€": "EUR", "—": "-", "–": "-", "‘": "'", "’": "'", "“": '"', "”": '"', "…": "...", "•": "-",
    "→": "->", "≤": "<=", "≥": ">=", "\u2009": " ", "\u202f": " ",
}


@contextmanager
def content(given: str, kind: str) -> Iterator[None]:
    """Refuse text the format cannot store: Word and Excel files are XML, which has no room for
    control characters or NUL bytes."""
    with importing():
        from openpyxl.utils.exceptions import IllegalCharacterError

    try:
        yield
    except (ValueError, IllegalCharacterError):
        raise InvalidRequest(
            f"the content for {given} holds control characters a .{kind} file cannot store; remove them and retry"
        ) from None


# Word


def add_blocks(document: DocxDocument, blocks: Sequence[tuple[str, str]]) -> None:
    """Append (style, text) blocks; style is heading1-3, paragraph or bullet."""
    for style, text in blocks:
        if style.startswith("heading"):
            document.add_heading(text, int(style[-1]))
        elif style == "bullet":
            document.add_paragraph(text, style="List Bullet")
        else:
            document.add_paragraph(text)


def add_table(document: DocxDocument, rows: Sequence[Sequence[str]]) -> None:
    width = max(len(row) for row in rows)
    table = document.add_table(rows=len(rows), cols=width)
    table.style = "Table Grid"
    for cells, row in zip(table.rows, rows, strict=True):
        for cell, value in zip(cells.cells, row, strict=False):
            cell.text = str(value)
    for cell in table.rows[0].cells:  # the first row is the header
        for run in cell.paragraphs[0].runs:
            run.bold = True


def docx_bytes(
    title: str | None,
    blocks: Sequence[tuple[str, str]],
    table: Sequence[Sequence[str]] | None = None,
    when: datetime | None = None,
) -> bytes:
    with importing():
        import docx

    document = docx.Document()
    props = document.core_properties
    props.title = title or ""
    props.author = props.last_modified_by = AUTHOR
    props.created = props.modified = (when or datetime.now(UTC)).replace(microsecond=0)
    props.revision = 1
    if title:
        document.add_heading(title, 0)
    add_blocks(document, blocks)
    if table:
        add_table(document, table)
    return save_docx(document)


def save_docx(document: DocxDocument) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


# Excel


def fill_sheet(sheet: Worksheet, rows: Sequence[Sequence[Cell]], *, header: bool = True) -> None:
    with importing():
        from openpyxl.styles import Font
        from openpyxl.utils import get_column_letter

    for row in rows:
        sheet.append(list(row))
    if header and rows:
        for cell in sheet[1]:
            cell.font = Font(bold=True)
    for index, column in enumerate(sheet.iter_cols(values_only=True), start=1):
        widest = max((len(str(v)) for v in column if v is not None), default=8)
        sheet.column_dimensions[get_column_letter(index)].width = min(max(widest + 2, 8), 60)


def add_excel_table(book: Workbook, sheet: Worksheet) -> str:
    """Format a sheet's used range as an Excel table (first row the header); returns its name."""
    with importing():
        from openpyxl.worksheet.table import Table, TableStyleInfo

    if sheet.max_row < 2:
        raise InvalidRequest(f"sheet {sheet.title!r} needs a header row and at least one data row to be a table")
    base = re.sub(r"\W", "", sheet.title) or "Table"
    name = base if base[0].isalpha() else f"T{base}"
    taken = {t for s in book.worksheets for t in s.tables}
    suffix = 1
    while name in taken:
        suffix += 1
        name = f"{base}{suffix}"
    table = Table(displayName=name, ref=sheet.dimensions)
    table.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2", showRowStripes=True)
    sheet.add_table(table)
    return name


def xlsx_bytes(sheets: Sequence[tuple[str, Sequence[Sequence[Cell]], bool]], when: datetime | None = None) -> bytes:
    """A workbook of (name, rows, as_table) sheets."""
    with importing():
        import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    book.properties.creator = AUTHOR
    book.properties.created = book.properties.modified = (when or datetime.now(UTC)).replace(tzinfo=None, microsecond=0)
    for name, rows, as_table in sheets:
        sheet = book.create_sheet(name)
        fill_sheet(sheet, rows)
        if as_table:
            add_excel_table(book, sheet)
    return save_xlsx(book, stamp_modified=when is None)


def save_xlsx(book: Workbook, *, stamp_modified: bool = True) -> bytes:
    """The workbook's bytes. openpyxl's save writes the clock into the `modified` property; a
    workbook made for a given time (the demo's, which must be the same bytes on every run)
    keeps the one it was given."""
    buffer = io.BytesIO()
    if stamp_modified:
        book.save(buffer)
        return buffer.getvalue()
    with importing():
        from openpyxl.writer.excel import ExcelWriter

    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(book, archive).save()
    return buffer.getvalue()


# PDF


def latin1(text: str) -> tuple[str, int]:
    """`text` in the characters a built-in PDF font has, and how many had to be replaced."""
    out: list[str] = []
    replaced = 0
    for char in text:
        if ord(char) < 256:
            out.append(char)
            continue
        replaced += 1
        out.append(PDF_SUBSTITUTES.get(char, "?"))
    return "".join(out), replaced


def pdf_bytes(title: str | None, text: str, when: datetime | None = None) -> tuple[bytes, int]:
    """A PDF of `text`: paragraphs split on blank lines, '# ' lines as headings, a form feed
    starting a new page. Returns the bytes and the number of characters replaced."""
    with importing():
        from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date((when or datetime.now(UTC)).replace(microsecond=0))
    pdf.set_author(AUTHOR)
    pdf.set_margins(20, 20, 20)
    pdf.set_auto_page_break(True, margin=20)
    replaced = 0
    if title:
        safe_title, replaced = latin1(title)
        pdf.set_title(safe_title)
    for number, page in enumerate(text.split("\f")):
        pdf.add_page()
        if number == 0 and title:
            pdf.set_font("helvetica", "B", 18)
            pdf.multi_cell(0, 10, safe_title, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(4)
        for paragraph in re.split(r"\n\s*\n", page.strip()):
            body, count = latin1(paragraph.strip())
            replaced += count
            if not body:
                continue
            heading = body.startswith("# ")
            pdf.set_font("helvetica", "B" if heading else "", 13 if heading else 11)
            pdf.multi_cell(0, 7 if heading else 6, body[2:] if heading else body, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
    return bytes(pdf.output()), replaced


# Plain text


def csv_text(rows: Sequence[Sequence[Cell]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    return buffer.getvalue()


# Landing a file in the sandbox


def need_suffix(real: Path, given: str, *suffixes: str) -> None:
    if real.suffix.lower() not in suffixes:
        raise InvalidRequest(f"{given} must end in {' or '.join(suffixes)} for this kind of document; rename it")


def set_modified(real: Path, when: datetime) -> None:
    stamp = when.timestamp()
    os.utime(real, (stamp, stamp))

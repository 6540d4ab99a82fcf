"""Creating documents: Word, Excel, PDF, CSV and Markdown files, and appending to Word and
Excel ones. Every file the domain writes is registered (or re-indexed) at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from facade.kit import CallContext, Conflict, Toolset

from domains.documents import inputs
from domains.documents.errors import parsing
from domains.documents.extract import need_kind, open_docx, open_xlsx
from domains.documents.index import register, render
from domains.documents.sandbox import existing_file, os_errors, resolve, write_file
from domains.documents.writers import (
    add_blocks,
    content,
    csv_text,
    docx_bytes,
    need_suffix,
    pdf_bytes,
    save_docx,
    save_xlsx,
    xlsx_bytes,
)

tools = Toolset()


def target(path: str, overwrite: bool, *suffixes: str) -> Path:
    """The real path a new document goes to, refused early when it is taken."""
    real = resolve(path)
    need_suffix(real, path, *suffixes)
    with os_errors(path):
        taken = real.exists()
    if taken and not overwrite:
        raise Conflict(f"{path} already exists; pass overwrite=true to replace it, or pick another name")
    return real


def land(ctx: CallContext, real: Path, given: str, data: bytes, **options: Any) -> dict[str, Any]:
    """Write the file and register it; the result every create and append returns."""
    write_file(real, given, data, overwrite=True)
    return {"document": render(register(ctx.db, real, given, **options))}


@tools.capability(
    "docx_create",
    example={
        "path": "drafts/project-kickoff.docx",
        "title": "Project Atlas kickoff",
        "blocks": [
            {"text": "Goals", "style": "heading1"},
            {"text": "Ship the customer portal beta by the end of February."},
            {"text": "Cut support response times to under four hours.", "style": "bullet"},
        ],
        "table": [["Role", "Owner"], ["Sponsor", "Dana Whitfield"], ["Lead", "Priya Natarajan"]],
        "tags": ["projects"],
    },
)
def docx_create(ctx: CallContext, args: inputs.DocxCreate) -> dict[str, Any]:
    """Create a Word document from headings, paragraphs, bullets and an optional table."""
    real = target(args.path, args.overwrite, ".docx")
    with content(args.path, "docx"):
        data = docx_bytes(args.title, [(b.style, b.text) for b in args.blocks], args.table)
    return land(ctx, real, args.path, data, title=args.title, tags=args.tags)


@tools.capability(
    "xlsx_create",
    example={
        "path": "drafts/inventory.xlsx",
        "sheets": [
            {
                "name": "Stock",
                "rows": [["SKU", "Item", "Quantity"], ["LAP-14", "Laptop 14in", 12], ["MON-27", "Monitor 27in", 30]],
                "as_table": True,
            },
            {"name": "Suppliers", "rows": [["Supplier", "Country"], ["Contoso Hardware", "Ireland"]]},
        ],
    },
)
def xlsx_create(ctx: CallContext, args: inputs.XlsxCreate) -> dict[str, Any]:
    """Create an Excel workbook with one or more sheets of rows."""
    names = [s.name.lower() for s in args.sheets]
    if len(set(names)) != len(names):
        raise Conflict("two sheets share a name (names ignore case in Excel); give each sheet its own name")
    real = target(args.path, args.overwrite, ".xlsx")
    with content(args.path, "xlsx"):
        data = xlsx_bytes([(s.name, s.rows, s.as_table) for s in args.sheets])
    return land(ctx, real, args.path, data, tags=args.tags)


@tools.capability(
    "pdf_create",
    example={
        "path": "drafts/welcome-letter.pdf",
        "title": "Welcome to Larkspur",
        "text": "Dear Sam,\n\nWelcome aboard! Your first day is Monday 2 November.\n\n# First week\n\nLaptop setup, "
        "team introductions and a tour of the Leeds office.",
    },
)
def pdf_create(ctx: CallContext, args: inputs.PdfCreate) -> dict[str, Any]:
    """Create a PDF from text with optional headings and page breaks."""
    real = target(args.path, args.overwrite, ".pdf")
    data, replaced = pdf_bytes(args.title, args.text)
    result = land(ctx, real, args.path, data, title=args.title, tags=args.tags)
    # The built-in PDF fonts are Latin-1: say what was simplified rather than fail the call.
    return {**result, "replaced_characters": replaced}


@tools.capability(
    "csv_create",
    example={
        "path": "drafts/suppliers.csv",
        "rows": [["supplier", "contact", "payment_terms_days"], ["Contoso Hardware", "orders@contoso.example", 30]],
    },
)
def csv_create(ctx: CallContext, args: inputs.CsvCreate) -> dict[str, Any]:
    """Create a CSV file from rows."""
    real = target(args.path, args.overwrite, ".csv")
    return land(ctx, real, args.path, csv_text(args.rows).encode("utf-8"), tags=args.tags)


@tools.capability(
    "markdown_create",
    example={
        "path": "drafts/retro-notes.md",
        "content": "# Sprint 14 retro\n\n- Went well: release on time\n- To improve: flaky checkout tests\n",
    },
)
def markdown_create(ctx: CallContext, args: inputs.MarkdownCreate) -> dict[str, Any]:
    """Create a Markdown or plain-text file."""
    real = target(args.path, args.overwrite, ".md", ".markdown", ".txt")
    return land(ctx, real, args.path, args.content.encode("utf-8"), tags=args.tags)


@tools.capability(
    "sheet_append",
    example={"path": "sales/q3-sales.xlsx", "sheet": "By region", "rows": [["East", 15800]]},
)
def sheet_append(ctx: CallContext, args: inputs.SheetAppend) -> dict[str, Any]:
    """Append rows to a workbook sheet, adding the sheet if it is new."""
    real = existing_file(args.path)
    need_kind(real, args.path, "xlsx")
    book = open_xlsx(real, args.path, editing=True)
    with parsing(args.path, "xlsx"):
        name = args.sheet or book.worksheets[0].title
        created = name not in book.sheetnames
        sheet = book.create_sheet(name) if created else book[name]
        last_row = sheet.max_row if sheet.max_row > 1 or sheet["A1"].value is not None else 0
        with content(args.path, "xlsx"):
            for row in args.rows:
                sheet.append(list(row))
        # A table that ended on the last row grows with the rows appended under it.
        from openpyxl.utils import get_column_letter, range_boundaries

        for table in sheet.tables.values():
            min_col, min_row, max_col, max_row = range_boundaries(table.ref)
            if max_row == last_row:
                table.ref = f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{sheet.max_row}"
        data = save_xlsx(book)
    result = land(ctx, real, args.path, data)
    return {**result, "sheet": name, "sheet_created": created, "appended_rows": len(args.rows)}


@tools.capability(
    "docx_append",
    example={
        "path": "policies/remote-work-policy.docx",
        "blocks": [{"text": "Review", "style": "heading1"}, {"text": "HR reviews this policy every October."}],
    },
)
def docx_append(ctx: CallContext, args: inputs.DocxAppend) -> dict[str, Any]:
    """Append headings, paragraphs or bullets to the end of a Word document."""
    real = existing_file(args.path)
    need_kind(real, args.path, "docx")
    document = open_docx(real, args.path)
    with parsing(args.path, "docx"):
        with content(args.path, "docx"):
            add_blocks(document, [(b.style, b.text) for b in args.blocks])
        data = save_docx(document)
    return {**land(ctx, real, args.path, data), "appended_blocks": len(args.blocks)}

"""Reading documents: any document's text, a Word file's structure, a workbook's sheets and
cells, a PDF's pages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from facade.kit import CallContext, InvalidRequest, NotFound, Toolset, importing

from domains.documents import inputs
from domains.documents.errors import parsing
from domains.documents.extract import cell_value, docx_blocks, extract, need_kind, open_docx, open_pdf, open_xlsx
from domains.documents.index import iso
from domains.documents.sandbox import display, existing_file
from domains.documents.settings import settings

if TYPE_CHECKING:  # openpyxl is imported where a workbook is opened (extract.open_xlsx)
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

tools = Toolset()


@tools.capability("document_read", read_only=True, example={"path": "reports/q3-board-report.docx"})
def document_read(ctx: CallContext, args: inputs.DocumentRead) -> dict[str, Any]:
    """Extract the text of a document (Word as markdown, sheets and pages labelled)."""
    real = existing_file(args.path)
    extracted = extract(real, args.path)
    text, limit = extracted.text, settings().max_text_chars
    if args.offset > len(text):
        raise InvalidRequest(f"offset {args.offset} is past the end of the text ({len(text)} characters); pass a smaller offset")
    end = min(args.offset + limit, len(text))
    return {
        "path": display(real),
        "kind": extracted.kind,
        "title": extracted.title,
        "page_count": extracted.page_count,
        "parts": [label for label, _ in extracted.parts],
        "total_chars": len(text),
        "offset": args.offset,
        "text": text[args.offset : end],
        "next_offset": end if end < len(text) else None,
    }


@tools.capability("docx_read", read_only=True, example={"path": "reports/q3-board-report.docx"})
def docx_read(ctx: CallContext, args: inputs.DocxRead) -> dict[str, Any]:
    """Read a Word document's headings, paragraphs, bullets and tables in order."""
    real = existing_file(args.path)
    need_kind(real, args.path, "docx")
    document = open_docx(real, args.path)
    with parsing(args.path, "docx"):
        blocks = docx_blocks(document)
        props = document.core_properties
        properties = {"title": props.title, "author": props.author, "created": iso(props.created), "modified": iso(props.modified)}
    chunk = blocks[args.offset : args.offset + args.limit]
    return {
        "path": display(real),
        "properties": properties,
        "blocks": [
            {"kind": b.kind, "level": b.level, "text": b.text} if b.kind == "heading"
            else {"kind": b.kind, "rows": b.rows} if b.kind == "table"
            else {"kind": b.kind, "text": b.text}
            for b in chunk
        ],
        "total": len(blocks),
        "tables": sum(1 for b in blocks if b.kind == "table"),
    }


@tools.capability("sheet_list", read_only=True, example={"path": "finance/budget-2027.xlsx"})
def sheet_list(ctx: CallContext, args: inputs.PathArg) -> dict[str, Any]:
    """List a workbook's sheets with their used ranges and Excel tables."""
    real = existing_file(args.path)
    need_kind(real, args.path, "xlsx")
    book = open_xlsx(real, args.path)
    with parsing(args.path, "xlsx"):
        sheets = [
            {
                "name": sheet.title,
                "range": sheet.dimensions,
                "rows": sheet.max_row,
                "columns": sheet.max_column,
                "hidden": sheet.sheet_state != "visible",
                "tables": [{"name": table.displayName, "range": table.ref} for table in sheet.tables.values()],
            }
            for sheet in book.worksheets
        ]
    return {"path": display(real), "sheets": sheets}


@tools.capability(
    "sheet_read", read_only=True, example={"path": "finance/budget-2027.xlsx", "sheet": "Marketing", "range": "A1:D6"}
)
def sheet_read(ctx: CallContext, args: inputs.SheetRead) -> dict[str, Any]:
    """Read cells of a workbook sheet, by range or by Excel table name, as rows."""
    if args.range is not None and args.table is not None:
        raise InvalidRequest("give range or table, not both")
    real = existing_file(args.path)
    need_kind(real, args.path, "xlsx")
    book = open_xlsx(real, args.path)
    with parsing(args.path, "xlsx"):
        if args.table is not None:
            sheet, ref = _table(book, args.table, args.sheet, args.path)
        else:
            sheet = pick_sheet(book, args.sheet, args.path)
            ref = (args.range or sheet.dimensions).upper()
        min_col, min_row, max_col, max_row = _bounds(ref)
        header: list[Any] | None = None
        if args.table is not None:
            header = [cell_value(v) for v in next(sheet.iter_rows(min_row, min_row, min_col, max_col, values_only=True))]
            min_row += 1
        first = min_row + args.offset
        last = min(first + args.limit - 1, max_row)
        rows = (
            [[cell_value(v) for v in row] for row in sheet.iter_rows(first, last, min_col, max_col, values_only=True)]
            if first <= last
            else []
        )
    total = max(max_row - min_row + 1, 0)
    result: dict[str, Any] = {"path": display(real), "sheet": sheet.title, "range": ref, "rows": rows, "total": total}
    if header is not None:
        result["header"] = header
    return result


MAX_ROWS, MAX_COLUMNS = 1_048_576, 16_384  # Excel's own sheet limits
COLUMNS_PER_READ = 500  # a wider range would hand a model hundreds of thousands of cells


def _bounds(ref: str) -> tuple[int, int, int, int]:
    """(min_col, min_row, max_col, max_row) of a range, refused when no sheet could hold it."""
    with importing():
        from openpyxl.utils import range_boundaries

    try:
        min_col, min_row, max_col, max_row = range_boundaries(ref)
    except (ValueError, TypeError):
        raise InvalidRequest(f"{ref} is not a cell range; give one like 'A1:D20'") from None
    if not (1 <= min_row <= max_row <= MAX_ROWS and 1 <= min_col <= max_col <= MAX_COLUMNS):
        raise InvalidRequest(f"{ref} is outside a sheet's A1:XFD1048576, or ends before it starts; fix the range")
    if max_col - min_col + 1 > COLUMNS_PER_READ:
        raise InvalidRequest(f"{ref} spans over {COLUMNS_PER_READ} columns; read narrower ranges")
    return min_col, min_row, max_col, max_row


def pick_sheet(book: Workbook, name: str | None, given: str) -> Worksheet:
    if name is None:
        return book.worksheets[0]
    if name not in book.sheetnames:
        raise NotFound(f"{given} has no sheet {name!r}; its sheets are {', '.join(book.sheetnames)}")
    return book[name]


def _table(book: Workbook, name: str, sheet_name: str | None, given: str) -> tuple[Worksheet, str]:
    sheets = [pick_sheet(book, sheet_name, given)] if sheet_name is not None else book.worksheets
    for sheet in sheets:
        for table in sheet.tables.values():
            if table.displayName.lower() == name.lower():
                return sheet, table.ref
    known = [t for s in sheets for t in s.tables] or ["none"]
    raise NotFound(f"{given} has no Excel table {name!r}; its tables are {', '.join(known)} (see documents.sheet_list)")


@tools.capability("pdf_read", read_only=True, example={"path": "handbook/travel-policy.pdf", "first_page": 1, "last_page": 2})
def pdf_read(ctx: CallContext, args: inputs.PdfRead) -> dict[str, Any]:
    """Read the text of a PDF page by page."""
    real = existing_file(args.path)
    need_kind(real, args.path, "pdf")
    reader = open_pdf(real, args.path)
    budget = settings().max_text_chars
    with parsing(args.path, "pdf"):
        count = len(reader.pages)
        if args.first_page > count:
            raise InvalidRequest(f"{args.path} has {count} pages; pass a first_page of at most {count}")
        last = min(args.last_page or count, count)
        if last < args.first_page:
            raise InvalidRequest(f"last_page {last} comes before first_page {args.first_page}; swap them")
        pages: list[dict[str, Any]] = []
        next_page: int | None = None
        for number in range(args.first_page, last + 1):
            text = (reader.pages[number - 1].extract_text() or "").strip()
            if pages and len(text) > budget:  # the rest in the next call, never a page cut in half
                next_page = number
                break
            budget -= len(text)
            pages.append({"number": number, "text": text})
    return {"path": display(real), "page_count": count, "pages": pages, "next_page": next_page}

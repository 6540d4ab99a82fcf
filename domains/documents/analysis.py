"""Looking at documents as text: word counts, comparing two documents, and converting one
kind into another."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from facade.kit import CallContext, InvalidRequest, Toolset

from domains.documents import inputs
from domains.documents.creating import land, target
from domains.documents.errors import parsing
from domains.documents.extract import (
    all_rows,
    blocks_markdown,
    blocks_text,
    count_words,
    csv_rows,
    docx_blocks,
    extract,
    kind_of,
    markdown_table,
    open_docx,
    open_xlsx,
    read_text_file,
)
from domains.documents.reading import pick_sheet
from domains.documents.sandbox import display, existing_file
from domains.documents.writers import content, csv_text, xlsx_bytes

tools = Toolset()

READING_WPM = 230  # a common adult silent-reading speed for prose
SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
TARGETS: dict[str, tuple[str, ...]] = {
    "docx": ("txt", "md"),
    "pdf": ("txt", "md"),
    "xlsx": ("csv", "md"),
    "csv": ("xlsx", "md"),
    "md": ("txt",),
    "txt": ("md",),
}
SUFFIX = {"txt": ".txt", "md": ".md", "csv": ".csv", "xlsx": ".xlsx"}


@tools.capability("word_count", read_only=True, example={"path": "policies/remote-work-policy.docx"})
def word_count(ctx: CallContext, args: inputs.PathArg) -> dict[str, Any]:
    """Count a document's words, characters, lines, paragraphs and sentences."""
    real = existing_file(args.path)
    extracted = extract(real, args.path, markdown=False)
    text = "\n\n".join(body for _, body in extracted.parts)
    words = count_words(text)
    result: dict[str, Any] = {
        "path": display(real),
        "words": words,
        "characters": len(text),
        "characters_no_spaces": sum(1 for c in text if not c.isspace()),
        "lines": sum(1 for line in text.splitlines() if line.strip()),
        "paragraphs": sum(1 for p in re.split(r"\n\s*\n", text) if p.strip()),
        "sentences": len(SENTENCE_END.findall(text)),
        "reading_minutes": round(words / READING_WPM, 1),
    }
    if len(extracted.parts) > 1:
        result["parts"] = [{"part": label, "words": count_words(body)} for label, body in extracted.parts]
    return result


@tools.capability(
    "document_compare",
    read_only=True,
    example={"path_a": "notes/meeting-2026-10-05.md", "path_b": "notes/meeting-2026-10-12.md"},
)
def document_compare(ctx: CallContext, args: inputs.Compare) -> dict[str, Any]:
    """Compare the text of two documents as a line diff with a similarity score."""
    real_a, real_b = existing_file(args.path_a), existing_file(args.path_b)
    lines_a = extract(real_a, args.path_a, markdown=False).text.splitlines()
    lines_b = extract(real_b, args.path_b, markdown=False).text.splitlines()
    a, b = display(real_a), display(real_b)
    diff = list(difflib.unified_diff(lines_a, lines_b, fromfile=a, tofile=b, n=args.context, lineterm=""))
    changes = diff[2:]  # past the two file-name lines
    return {
        "path_a": a,
        "path_b": b,
        "identical": lines_a == lines_b,
        "similarity": round(difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False).ratio(), 3),
        "added_lines": sum(1 for line in changes if line.startswith("+")),
        "removed_lines": sum(1 for line in changes if line.startswith("-")),
        "diff": diff[: args.max_lines],
        "truncated": len(diff) > args.max_lines,
    }


@tools.capability("document_convert", example={"path": "finance/budget-2027.xlsx", "to": "csv", "sheet": "Summary"})
def document_convert(ctx: CallContext, args: inputs.Convert) -> dict[str, Any]:
    """Convert a document to another kind (Word or PDF to text, Excel to CSV, CSV to Excel)."""
    real = existing_file(args.path)
    kind = kind_of(real, args.path)
    if args.to not in TARGETS[kind]:
        raise InvalidRequest(f"a .{kind} file converts to {' or '.join(TARGETS[kind])}, not {args.to}; pick one of those")
    if args.sheet is not None and kind != "xlsx":
        raise InvalidRequest("sheet applies only to an .xlsx source; leave it out")
    dest = args.dest or display(real.with_suffix(SUFFIX[args.to]))
    dest_real = target(dest, args.overwrite, SUFFIX[args.to])
    data = _converted(real, args.path, kind, args.to, args.sheet)
    return {**land(ctx, dest_real, dest, data), "source": display(real)}


def _converted(real: Path, given: str, kind: str, to: str, sheet: str | None) -> bytes:
    if kind == "docx":
        document = open_docx(real, given)
        with parsing(given, kind):
            blocks = docx_blocks(document)
        return (blocks_markdown(blocks) if to == "md" else blocks_text(blocks)).encode("utf-8")
    if kind == "pdf":
        parts = extract(real, given).parts
        if to == "md":
            return "\n\n".join(f"## Page {n}\n\n{body}" for n, (_, body) in enumerate(parts, 1)).encode("utf-8")
        return "\n\n".join(body for _, body in parts).encode("utf-8")
    if kind == "xlsx":
        book = open_xlsx(real, given)
        with parsing(given, kind):
            rows = all_rows(pick_sheet(book, sheet, given))
        if to == "csv":
            return csv_text(rows).encode("utf-8")
        return markdown_table([["" if v is None else str(v) for v in row] for row in rows]).encode("utf-8")
    text = read_text_file(real, given)
    if kind == "csv":
        rows = csv_rows(text)
        if not rows:
            raise InvalidRequest(f"{given} has no rows to convert")
        if to == "xlsx":
            # Excel refuses these characters in a sheet name, and names longer than 31.
            sheet_name = re.sub(r"[\[\]:*?/\\]", "_", real.stem)[:31] or "Sheet1"
            with content(given, "xlsx"):
                return xlsx_bytes([(sheet_name, [_typed(row) for row in rows], False)])
        return markdown_table(rows).encode("utf-8")
    return text.encode("utf-8")  # Markdown is plain text with marks; both keep the text as it is


def _typed(row: list[str]) -> list[str | int | float]:
    """CSV cells as numbers where they are numbers, so the workbook can sum them."""
    out: list[str | int | float] = []
    for cell in row:
        try:
            out.append(int(cell) if re.fullmatch(r"-?\d{1,15}", cell) else float(cell) if re.fullmatch(r"-?\d+\.\d+", cell) else cell)
        except ValueError:
            out.append(cell)
    return out

"""PDF page work: merging several PDFs into one, splitting one into parts by page ranges."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from facade.kit import CallContext, InvalidRequest, Toolset, importing

from domains.documents import inputs
from domains.documents.creating import land, target
from domains.documents.errors import parsing
from domains.documents.extract import need_kind, open_pdf
from domains.documents.sandbox import display, existing_file, folder_prefix, resolve

if TYPE_CHECKING:  # pypdf is imported where a PDF is made (see writers.py)
    import pypdf

tools = Toolset()


def _writer() -> pypdf.PdfWriter:
    with importing():
        import pypdf

    return pypdf.PdfWriter()


def _bytes(writer: pypdf.PdfWriter) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@tools.capability(
    "pdf_merge",
    example={"paths": ["handbook/travel-policy.pdf", "contracts/nda-northwind.pdf"], "dest": "merged/onboarding-pack.pdf"},
)
def pdf_merge(ctx: CallContext, args: inputs.PdfMerge) -> dict[str, Any]:
    """Merge several PDFs, in the order given, into one new PDF."""
    dest_real = target(args.dest, args.overwrite, ".pdf")
    writer = _writer()
    sources: list[dict[str, Any]] = []
    for given in args.paths:
        real = existing_file(given)
        need_kind(real, given, "pdf")
        reader = open_pdf(real, given)
        with parsing(given, "pdf"):
            writer.append(reader)
            sources.append({"path": display(real), "pages": len(reader.pages)})
    with parsing(args.dest, "pdf"):
        data = _bytes(writer)
    return {**land(ctx, dest_real, args.dest, data), "sources": sources}


@tools.capability(
    "pdf_split", example={"path": "handbook/travel-policy.pdf", "ranges": ["1", "2-3"], "folder": "handbook/parts"}
)
def pdf_split(ctx: CallContext, args: inputs.PdfSplit) -> dict[str, Any]:
    """Split a PDF into new PDFs, one per page range."""
    real = existing_file(args.path)
    need_kind(real, args.path, "pdf")
    reader = open_pdf(real, args.path)
    count = len(reader.pages)
    spans: list[tuple[int, int]] = []
    for text in args.ranges:
        first, _, last = text.partition("-")
        span = (int(first), int(last or first))
        if not 1 <= span[0] <= span[1] <= count:
            raise InvalidRequest(f"range {text!r} does not fit {args.path}, which has pages 1-{count}; fix the range")
        spans.append(span)
    folder_real = resolve(args.folder) if args.folder is not None else real.parent
    folder = folder_prefix(folder_real)
    # Every part's name is checked before any is written, so a clash leaves nothing half done.
    names = [f"{folder}{real.stem}-p{a}-{b}.pdf" if a != b else f"{folder}{real.stem}-p{a}.pdf" for a, b in spans]
    targets = [target(name, args.overwrite, ".pdf") for name in names]
    parts: list[dict[str, Any]] = []
    for (first_page, last_page), name, dest_real in zip(spans, names, targets, strict=True):
        writer = _writer()
        with parsing(args.path, "pdf"):
            for number in range(first_page - 1, last_page):
                writer.add_page(reader.pages[number])
            data = _bytes(writer)
        parts.append({**land(ctx, dest_real, name, data)["document"], "pages": f"{first_page}-{last_page}"})
    return {"source": display(real), "parts": parts}

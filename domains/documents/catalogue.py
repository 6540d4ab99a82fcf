"""The catalogue of registered documents: list, get, search, register, edit and delete."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import selectinload

from facade.kit import CallContext, InvalidRequest, Toolset, records

from domains.documents import inputs
from domains.documents.index import DOCUMENT, register, render
from domains.documents.sandbox import existing_file, folder_prefix, remove_file, resolve
from domains.documents.tables import Document, Tag

tools = Toolset()

SEARCH_CAP = 1000  # rows ranked per search; a larger hit list is narrowed with kind or tag
SNIPPET_CHARS = 80


def _document_where(args: inputs.DocumentFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.tag is not None:
        conditions.append(Document.tags.any(Tag.name == args.tag))
    if args.folder:
        prefix = folder_prefix(resolve(args.folder))
        if prefix:
            conditions.append(Document.path.startswith(prefix, autoescape=True))
    return conditions


records.add_list(
    tools,
    DOCUMENT,
    inputs.DocumentFilter,
    example={"tag": "finance"},
    where=_document_where,
    description="List registered documents, optionally by kind, tag or folder.",
)
records.add_get(tools, DOCUMENT, example_id=1)


@tools.capability("document_search", read_only=True, example={"query": "revenue"})
def document_search(ctx: CallContext, args: inputs.DocumentSearch) -> dict[str, Any]:
    """Find documents whose text, title, notes or tags contain some words."""
    needle = " ".join(args.query.split()).lower()
    if not needle:
        raise InvalidRequest("the query is blank; give a word or phrase to look for")
    conditions: list[ColumnElement[bool]] = [
        or_(
            func.lower(Document.title).contains(needle, autoescape=True),
            func.lower(Document.text).contains(needle, autoescape=True),
            func.lower(Document.notes).contains(needle, autoescape=True),
            Document.tags.any(Tag.name == needle),
        )
    ]
    if args.kind is not None:
        conditions.append(Document.kind == args.kind)
    if args.tag is not None:
        conditions.append(Document.tags.any(Tag.name == args.tag))
    rows = ctx.db.scalars(
        select(Document).where(*conditions).options(selectinload(Document.tags)).order_by(Document.id).limit(SEARCH_CAP)
    ).all()
    ranked = sorted(((_score(doc, needle), doc) for doc in rows), key=lambda pair: (-pair[0], pair[1].id))
    chunk = ranked[args.offset : args.offset + args.limit]
    hits = [
        {"document": {k: v for k, v in render(doc).items() if k != "preview"}, "score": score, "snippet": _snippet(doc.text, needle)}
        for score, doc in chunk
    ]
    return {"query": needle, "results": hits, "total": len(ranked)}


def _score(doc: Document, needle: str) -> int:
    # A hit in the title or a tag says more about a document than one more mention in its body.
    tagged = any(t.name == needle for t in doc.tags)
    return 5 * doc.title.lower().count(needle) + 5 * tagged + doc.text.lower().count(needle) + doc.notes.lower().count(needle)


def _snippet(text: str, needle: str) -> str:
    at = text.lower().find(needle)
    if at < 0:
        return ""
    start, end = max(at - SNIPPET_CHARS, 0), min(at + len(needle) + SNIPPET_CHARS, len(text))
    return ("…" if start else "") + " ".join(text[start:end].split()) + ("…" if end < len(text) else "")


@tools.capability("document_add", example={"path": "scans/delivery-note-4471.pdf", "tags": ["purchasing"]})
def document_add(ctx: CallContext, args: inputs.DocumentAdd) -> dict[str, Any]:
    """Register a file already in the documents folder, indexing its text."""
    real = existing_file(args.path)
    doc = register(ctx.db, real, args.path, title=args.title, notes=args.notes, tags=args.tags, refresh_existing=False)
    return {"document": render(doc)}


records.add_update(
    tools,
    DOCUMENT,
    inputs.DocumentUpdate,
    example={"document_id": 1, "notes": "Approved by the board on 2026-10-20."},
    description="Change a document's title or notes.",
)


# With delete_file the document's file is gone for good: the host asks its user first (approval 1).
@tools.capability("document_delete", approval=1, destructive=True, idempotent=True, example={"document_id": 10, "delete_file": True})
def document_delete(ctx: CallContext, args: inputs.DocumentDelete) -> dict[str, Any]:
    """Unregister a document, and delete its file when asked."""
    doc = DOCUMENT.fetch(ctx.db, args.document_id)
    path = doc.path
    ctx.db.delete(doc)
    ctx.db.flush()
    file_deleted = remove_file(path) if args.delete_file else False
    return {"deleted": {"document_id": args.document_id, "path": path}, "file_deleted": file_deleted}

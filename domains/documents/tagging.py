"""Tags on documents: add, remove, list, and the bulk and rename operations."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select, update

from facade.kit import CallContext, InvalidRequest, NotFound

from domains.documents import inputs
from domains.documents.capabilities import domain
from domains.documents.index import DOCUMENT, add_tags, render
from domains.documents.tables import Document, Tag


@domain.capability("tag_add", idempotent=True, example={"document_id": 3, "tags": ["planning", "2027"]})
def tag_add(ctx: CallContext, args: inputs.TagAdd) -> dict[str, Any]:
    """Add tags to a document."""
    doc = DOCUMENT.fetch(ctx.db, args.document_id)
    added = add_tags(doc, args.tags)
    ctx.db.flush()
    return {"document": render(doc), "added": added}


@domain.capability("tag_remove", idempotent=True, example={"document_id": 1, "tag": "draft"})
def tag_remove(ctx: CallContext, args: inputs.TagRemove) -> dict[str, Any]:
    """Remove a tag from a document."""
    doc = DOCUMENT.fetch(ctx.db, args.document_id)
    tag = next((t for t in doc.tags if t.name == args.tag), None)
    if tag is None:
        carried = ", ".join(t.name for t in doc.tags) or "none"
        raise NotFound(f"document {doc.id} has no tag {args.tag!r}; its tags are: {carried}")
    doc.tags.remove(tag)
    ctx.db.flush()
    return {"document": render(doc)}


@domain.capability("tag_list", read_only=True, example={})
def tag_list(ctx: CallContext, args: inputs.TagList) -> dict[str, Any]:
    """List the tags in use with how many documents carry each."""
    conditions = []
    if args.prefix:
        conditions.append(Tag.name.startswith(args.prefix.lower(), autoescape=True))
    total = ctx.db.scalar(select(func.count(func.distinct(Tag.name))).where(*conditions)) or 0
    rows = ctx.db.execute(
        select(Tag.name, func.count(Tag.id))
        .where(*conditions)
        .group_by(Tag.name)
        .order_by(func.count(Tag.id).desc(), Tag.name)
        .limit(args.limit)
        .offset(args.offset)
    ).all()
    return {"tags": [{"name": name, "documents": n} for name, n in rows], "total": total}


@domain.capability("tag_bulk_add", idempotent=True, example={"document_ids": [1, 3, 4], "tag": "q3"})
def tag_bulk_add(ctx: CallContext, args: inputs.TagBulkAdd) -> dict[str, Any]:
    """Add one tag to many documents, reporting each one's result."""
    results: list[dict[str, Any]] = []
    for document_id in dict.fromkeys(args.document_ids):
        doc = ctx.db.get(Document, document_id)
        if doc is None:
            results.append({"document_id": document_id, "error": f"document {document_id} does not exist"})
            continue
        results.append({"document_id": document_id, "added": bool(add_tags(doc, [args.tag]))})
    ctx.db.flush()
    return {"tag": args.tag, "results": results, "failed": sum(1 for r in results if "error" in r)}


@domain.capability("tag_rename", idempotent=True, example={"old": "crm", "new": "customers"})
def tag_rename(ctx: CallContext, args: inputs.TagRename) -> dict[str, Any]:
    """Rename a tag on every document, merging it where the new name is already there."""
    if args.old == args.new:
        raise InvalidRequest("the old and new tag names are the same; give a different new name")
    db = ctx.db
    carriers = set(db.scalars(select(Tag.document_id).where(Tag.name == args.old)))
    if not carriers:
        raise NotFound(f"no document carries the tag {args.old!r}; see the tags in use with documents.tag_list")
    both = carriers & set(db.scalars(select(Tag.document_id).where(Tag.name == args.new)))
    # Where the new name is already present the old tag just goes, so no document has it twice.
    merged = db.execute(delete(Tag).where(Tag.name == args.old, Tag.document_id.in_(both))).rowcount if both else 0
    renamed = db.execute(update(Tag).where(Tag.name == args.old).values(name=args.new)).rowcount
    db.expire_all()
    return {"old": args.old, "new": args.new, "renamed": renamed, "merged": merged}

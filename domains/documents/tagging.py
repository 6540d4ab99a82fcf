"""Tags on documents: add, remove, list and bulk-add (the kit's tag capabilities), and rename."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update

from facade.kit import CallContext, InvalidRequest, NotFound, Toolset

from domains.documents import inputs
from domains.documents.index import TAGS
from domains.documents.tables import Tag

tools = Toolset()

TAGS.add_capabilities(
    tools,
    tag_add=(inputs.TagAdd, {"document_id": 3, "tags": ["planning", "2027"]}),
    tag_remove=(inputs.TagRemove, {"document_id": 1, "tag": "draft"}),
    tag_list=(inputs.TagList, {}),
    tag_bulk_add=(inputs.TagBulkAdd, {"document_ids": [1, 3, 4], "tag": "q3"}),
)


@tools.capability("tag_rename", idempotent=True, example={"old": "crm", "new": "customers"})
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

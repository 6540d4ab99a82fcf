"""Tags: short lowercase labels on one kind of record, and the capabilities that add, remove,
list and bulk-add them — written once for every domain whose records carry tags.

A domain declares its tags as data (the tagged entity and the table of tag rows) and its input
models and examples; the handlers, descriptions and messages come from here, so that a
document's tags and a photo's tags cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, Field
from sqlalchemy import func, select

from facade.kit.capability import CallContext, Handler, Input
from facade.kit.toolset import Declarer
from facade.errors import NotFound
from facade.kit.records import Entity

T = TypeVar("T")
Declared = tuple[type[Input], dict[str, Any]]
"""A tag capability's input model and its example."""

TAG_PATTERN = re.compile(r"[a-z0-9][a-z0-9 _.-]*")


def tag_name(value: str) -> str:
    """A tag as stored: inner whitespace folded, lowercase; refused unless it fits TAG_PATTERN."""
    name = " ".join(value.split()).lower()
    if not TAG_PATTERN.fullmatch(name):
        raise ValueError("a tag is letters, digits, spaces, '.', '_' or '-', starting with a letter or digit")
    return name


TagName = Annotated[str, Field(min_length=1, max_length=50), AfterValidator(tag_name)]


@dataclass(frozen=True, slots=True)
class Tags(Generic[T]):
    """The tags on one kind of record.

    Attributes:
        entity: the tagged record; its `tags` relationship holds rows of `table`, by name.
        table: the tag rows: `id`, `name`, and a key to the record named like the entity's id
            field (`document_id`), unique per record and name.
    """

    entity: Entity[T]
    table: type[Any]

    def add(self, record: Any, names: Iterable[str]) -> list[str]:
        """Add the tags the record does not carry yet; returns those added."""
        have = {t.name for t in record.tags}
        added = [name for name in dict.fromkeys(names) if name not in have]
        record.tags.extend(self.table(name=name) for name in added)
        return added

    def add_capabilities(
        self, into: Declarer, *, tag_add: Declared, tag_remove: Declared, tag_list: Declared, tag_bulk_add: Declared
    ) -> None:
        """Declare `tag_add`, `tag_remove`, `tag_list` and `tag_bulk_add`, in that order, each
        with the domain's input model and example."""
        entity, table = self.entity, self.table
        id_field, ids_field = entity.id_field, f"{entity.id_field}s"
        noun, plural = entity.name.replace("_", " "), entity.plural.replace("_", " ")

        def add(ctx: CallContext, args: Any) -> dict[str, Any]:
            record = entity.fetch(ctx.db, getattr(args, id_field))
            added = self.add(record, args.tags)
            ctx.db.flush()
            return {entity.name: entity.render(record), "added": added}

        def remove(ctx: CallContext, args: Any) -> dict[str, Any]:
            record: Any = entity.fetch(ctx.db, getattr(args, id_field))
            tag = next((t for t in record.tags if t.name == args.tag), None)
            if tag is None:
                carried = ", ".join(t.name for t in record.tags) or "none"
                raise NotFound(f"{noun} {record.id} has no tag {args.tag!r}; its tags are: {carried}")
            record.tags.remove(tag)
            ctx.db.flush()
            return {entity.name: entity.render(record)}

        def list_(ctx: CallContext, args: Any) -> dict[str, Any]:
            conditions = [table.name.startswith(args.prefix.lower(), autoescape=True)] if args.prefix else []
            total = ctx.db.scalar(select(func.count(func.distinct(table.name))).where(*conditions)) or 0
            rows = ctx.db.execute(
                select(table.name, func.count(table.id))
                .where(*conditions)
                .group_by(table.name)
                .order_by(func.count(table.id).desc(), table.name)
                .limit(args.limit)
                .offset(args.offset)
            ).all()
            return {"tags": [{"name": name, entity.plural: n} for name, n in rows], "total": total}

        def bulk_add(ctx: CallContext, args: Any) -> dict[str, Any]:
            results: list[dict[str, Any]] = []
            for record_id in dict.fromkeys(getattr(args, ids_field)):
                record = ctx.db.get(entity.table, record_id)
                if record is None:
                    results.append({id_field: record_id, "error": f"{noun} {record_id} does not exist"})
                    continue
                results.append({id_field: record_id, "added": bool(self.add(record, [args.tag]))})
            ctx.db.flush()
            return {"tag": args.tag, "results": results, "failed": sum(1 for r in results if "error" in r)}

        def declare(
            action: str, handler: Handler, declared: Declared, description: str, reads: tuple[str, ...], **hints: bool
        ) -> None:
            model, example = declared
            into.add(action, handler, input_model=model, description=description, example=example, reads=reads, **hints)

        article = "an" if noun[0] in "aeiou" else "a"
        declare("tag_add", add, tag_add, f"Add tags to {article} {noun}.", (id_field, "tags"), idempotent=True)
        declare(
            "tag_remove", remove, tag_remove, f"Remove a tag from {article} {noun}.", (id_field, "tag"), idempotent=True
        )
        declare(
            "tag_list",
            list_,
            tag_list,
            f"List the tags in use with how many {plural} carry each.",
            ("prefix", "limit", "offset"),
            read_only=True,
        )
        declare(
            "tag_bulk_add",
            bulk_add,
            tag_bulk_add,
            f"Add one tag to many {plural}, reporting each one's result.",
            (ids_field, "tag"),
            idempotent=True,
        )

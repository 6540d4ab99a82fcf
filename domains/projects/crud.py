"""Get, list, update and delete work the same way for every entity, so each is one factory that
yields the capability from the entity's data; the entity-specific rules come in as checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import create_model
from sqlalchemy import ColumnElement, func, inspect, select
from sqlalchemy.orm import Session

from domains.projects import rules
from domains.projects.entities import REFERENCED_BY, Entity
from domains.projects.inputs import Args, Id, Page
from facade.kit import CallContext, Domain, Input, InvalidRequest

UpdateCheck = Callable[[Session, Any, dict[str, Any]], None]
DeleteCheck = Callable[[Session, Any], dict[str, Any]]
Where = Callable[[Any], list[ColumnElement[bool]]]


def add_get(domain: Domain, entity: Entity[Any], *, example_id: int) -> None:
    model = _ref_model(entity, "Get")

    def get(ctx: CallContext, args: Any) -> dict[str, Any]:
        return {entity.name: entity.render(entity.fetch(ctx.db, getattr(args, entity.id_field)))}

    domain.add(
        f"{entity.name}_get",
        get,
        input_model=model,
        description=f"Get one {entity.name} by id.",
        read_only=True,
        example={entity.id_field: example_id},
    )


def add_list(
    domain: Domain,
    entity: Entity[Any],
    filters: type[Page],
    *,
    example: dict[str, Any],
    where: Where | None = None,
    description: str | None = None,
) -> None:
    """A paginated list. A filter named like a column of the entity filters by equality; `where`
    adds the others."""
    columns = inspect(entity.table).columns

    def list_(ctx: CallContext, args: Any) -> dict[str, Any]:
        db = ctx.db
        conditions: list[ColumnElement[bool]] = []
        for field in type(args).model_fields:
            value = getattr(args, field)
            if field in Page.model_fields or value is None:
                continue
            if field in REFERENCED_BY:
                REFERENCED_BY[field].fetch(db, value)
            if field in columns:
                conditions.append(columns[field] == value)
        conditions.extend(where(args) if where else [])
        total = db.scalar(select(func.count()).select_from(entity.table).where(*conditions))
        rows = db.scalars(
            select(entity.table)
            .where(*conditions)
            .options(*entity.load)
            .order_by(columns["id"])
            .limit(args.limit)
            .offset(args.offset)
        )
        return {entity.plural: [entity.render(row) for row in rows], "total": total}

    domain.add(
        f"{entity.name}_list",
        list_,
        input_model=filters,
        description=description or f"List {entity.plural}, optionally filtered.",
        read_only=True,
        example=example,
    )


def add_update(
    domain: Domain,
    entity: Entity[Any],
    model: type[Input],
    *,
    example: dict[str, Any],
    check: UpdateCheck | None = None,
) -> None:
    """A partial update: only the fields given change; null clears a field that may be empty."""
    columns = inspect(entity.table).columns
    editable = [f for f in model.model_fields if f != entity.id_field]

    def update(ctx: CallContext, args: Any) -> dict[str, Any]:
        db = ctx.db
        record = entity.fetch(db, getattr(args, entity.id_field))
        if entity.project_of is not None:
            rules.writable(entity.project_of(record))
        changes = {f: getattr(args, f) for f in editable if f in args.model_fields_set}
        if not changes:
            raise InvalidRequest(f"nothing to change; give at least one of: {', '.join(editable)}")
        for field, value in changes.items():
            if value is None and not columns[field].nullable:
                raise InvalidRequest(f"{field} cannot be null; omit it to keep the current value")
        if check is not None:
            check(db, record, changes)
        for field, value in changes.items():
            setattr(record, field, value)
        db.flush()
        return {entity.name: entity.render(record)}

    domain.add(
        f"{entity.name}_update",
        update,
        input_model=model,
        description=f"Change some fields of a {entity.name}.",
        idempotent=True,
        example=example,
    )


def add_delete(
    domain: Domain,
    entity: Entity[Any],
    *,
    example_id: int,
    check: DeleteCheck | None = None,
    description: str | None = None,
) -> None:
    """A delete; `check` may refuse it or report what else it touched."""
    model = _ref_model(entity, "Delete")

    def delete(ctx: CallContext, args: Any) -> dict[str, Any]:
        db = ctx.db
        record_id = getattr(args, entity.id_field)
        record = entity.fetch(db, record_id)
        if entity.project_of is not None:
            rules.writable(entity.project_of(record))
        extra = check(db, record) if check is not None else {}
        db.delete(record)
        db.flush()
        return {"deleted": {entity.id_field: record_id}, **extra}

    domain.add(
        f"{entity.name}_delete",
        delete,
        input_model=model,
        description=description or f"Delete a {entity.name}.",
        destructive=True,
        idempotent=True,
        example={entity.id_field: example_id},
    )


def _ref_model(entity: Entity[Any], verb: str) -> type[Input]:
    name = "".join(part.title() for part in entity.name.split("_")) + verb
    fields: dict[str, Any] = {entity.id_field: (Id, ...)}
    return create_model(name, __base__=Args, __module__=__name__, **fields)

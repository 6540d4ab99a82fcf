"""Records: an entity declared once yields its create/get/list/update/delete capabilities.

Get, list, update and delete work the same way for every table, so each is one factory that
builds the capability from the entity's data; a domain's own rules come in as `check` hooks
(and a `guard` that freezes records), never as a copied handler.
"""

from __future__ import annotations

import datetime as dt
import functools
import decimal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, Field, create_model
from pydantic_core import PydanticCustomError
from sqlalchemy import ColumnElement, Select, bindparam, func, inspect, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.interfaces import LoaderOption

from facade.kit.capability import IDENTITY_FIELDS, CallContext, Input
from facade.kit.db import INTEGER_MAX
from facade.kit.toolset import Declarer
from facade.errors import Conflict, InvalidRequest, NotFound

T = TypeVar("T")


def at_most_integer(value: int) -> int:
    """An id or offset as wide as PostgreSQL's `integer` allows: it says so, rather than letting
    the database refuse the bind (which read as an outage, 2026-12-02). Checked after
    validation, so the announced schema stays as it was."""
    if value > INTEGER_MAX:
        raise PydanticCustomError("too_large", "must be at most {limit}, the largest id (and row count) the database holds", {"limit": INTEGER_MAX})
    return value


Id = Annotated[int, Field(ge=1), AfterValidator(at_most_integer)]
Guard = Callable[[Any], None]
CreateCheck = Callable[[Session, dict[str, Any]], None]
UpdateCheck = Callable[[Session, Any, dict[str, Any]], None]
DeleteCheck = Callable[[Session, Any], dict[str, Any]]
Where = Callable[[Any], list[ColumnElement[bool]]]


class Page(Input):
    """Base of list filters: a page of at most 200 rows."""

    limit: int = Field(default=50, ge=1, le=200)
    offset: Annotated[int, AfterValidator(at_most_integer)] = Field(default=0, ge=0)


def values_of(args: Any, *, exclude: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """A parsed call's own arguments (identity fields dropped), as given, including defaults."""
    return {
        name: getattr(args, name)
        for name in type(args).model_fields
        if name not in IDENTITY_FIELDS and name not in exclude
    }


def contains_text(column: Any, needle: str) -> ColumnElement[bool]:
    """The condition that `column` holds `needle`, ignoring case. The needle's `%`, `_` and `\\`
    are taken literally: a model searching for "50%" or "q3_report" means those characters."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return column.ilike(f"%{escaped}%", escape="\\")


def jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


def columns_of(record: Any) -> dict[str, Any]:
    """Every column of a record, JSON-friendly: the default rendering of an entity."""
    return {c.key: jsonable(getattr(record, c.key)) for c in inspect(type(record)).mapper.column_attrs}


@dataclass(frozen=True, slots=True)
class Entity(Generic[T]):
    """One kind of record of a domain.

    Attributes:
        domain: the domain's name, for messages that point at its list tool.
        name: singular, as in capability names (`invoice` in `finance.invoice_get`).
        plural: the key of list results.
        table: the mapped class.
        render: record → JSON-friendly dict; all columns by default.
        guard: raises a DomainError when the record may not change (e.g. a posted entry).
        load: loader options that keep `render` from querying once per row.
    """

    domain: str
    name: str
    plural: str
    table: type[T]
    render: Callable[[T], dict[str, Any]] = columns_of
    guard: Guard | None = None
    load: tuple[LoaderOption, ...] = ()

    @property
    def id_field(self) -> str:
        return f"{self.name}_id"

    def fetch(self, db: Session, record_id: int) -> T:
        """The record, or NotFound naming the tool that lists the valid ids."""
        result = db.execute(_by_id(self.table, self.load), {"record_id": record_id})
        # unique(): a joined load of a collection repeats the record once per row, as `get`
        # allowed; without loader options there is one row at most (~5 us saved, 2026-12-05).
        record = (result.unique() if self.load else result).scalar_one_or_none()
        if record is None:
            raise NotFound(
                f"{self.name} {record_id} does not exist; list {self.plural} with {self.domain}.{self.name}_list"
            )
        return record


@functools.cache
def _by_id(table: type[Any], load: tuple[LoaderOption, ...]) -> Select[Any]:
    """One statement per entity, built at its first read: `Session.get` built and keyed a new
    SELECT on every call, ~40 of a `projects.project_get`'s ~190 µs in the database (2026-12,
    issue 17). Built lazily, because building it configures the mappers, which start-up never
    needs. Loads the same identity-mapped object `get` would."""
    (primary_key,) = inspect(table).primary_key  # every entity has one integer id
    return select(table).where(primary_key == bindparam("record_id")).options(*load)


def flush(db: Session, what: str) -> None:
    """Flush, turning a constraint violation into a Conflict that says what to change."""
    try:
        db.flush()
    except IntegrityError as exc:
        db.rollback()
        detail = str(exc.orig).splitlines()[0] if exc.orig else "a constraint"
        raise Conflict(f"{what} clashes with an existing record or a missing reference ({detail}); change it and retry") from None


def add_create(
    into: Declarer,
    entity: Entity[Any],
    model: type[Input],
    *,
    example: dict[str, Any],
    check: CreateCheck | None = None,
    references: Mapping[str, Entity[Any]] | None = None,
    description: str | None = None,
    **options: Any,
) -> None:
    """Create a record from the model's fields; `references` names fields that must point at an
    existing record, and `check` may refuse or fill in values."""

    def create(ctx: CallContext, args: Any) -> dict[str, Any]:
        values = values_of(args)
        for field, target in (references or {}).items():
            if values.get(field) is not None:
                parent = target.fetch(ctx.db, values[field])
                if target.guard is not None:
                    target.guard(parent)
        if check is not None:
            check(ctx.db, values)
        record = entity.table(**values)
        ctx.db.add(record)
        flush(ctx.db, f"the new {entity.name}")
        return {entity.name: entity.render(record)}

    into.add(
        f"{entity.name}_create",
        create,
        input_model=model,
        description=description or f"Create a {entity.name.replace('_', ' ')}.",
        example=example,
        **options,
    )


def add_get(into: Declarer, entity: Entity[Any], *, example_id: int, **options: Any) -> None:
    def get(ctx: CallContext, args: Any) -> dict[str, Any]:
        return {entity.name: entity.render(entity.fetch(ctx.db, getattr(args, entity.id_field)))}

    into.add(
        f"{entity.name}_get",
        get,
        input_model=id_model(entity, "Get"),
        description=f"Get one {entity.name.replace('_', ' ')} by id.",
        read_only=True,
        example={entity.id_field: example_id},
        **options,
    )


def add_list(
    into: Declarer,
    entity: Entity[Any],
    filters: type[Page] = Page,
    *,
    example: dict[str, Any] | None = None,
    where: Where | None = None,
    references: Mapping[str, Entity[Any]] | None = None,
    description: str | None = None,
    **options: Any,
) -> None:
    """A paginated list. A filter named like a column filters by equality; `where` adds the
    others. A filter naming a missing record says so rather than answering with an empty page
    a model would read as "none yet"."""
    columns = inspect(entity.table).columns

    def list_(ctx: CallContext, args: Any) -> dict[str, Any]:
        db = ctx.db
        conditions: list[ColumnElement[bool]] = []
        for field, value in values_of(args, exclude=set(Page.model_fields)).items():
            if value is None:
                continue
            if references and field in references:
                references[field].fetch(db, value)
            if field in columns:
                conditions.append(columns[field] == value)
        conditions.extend(where(args) if where else [])
        total = db.scalar(select(func.count()).select_from(entity.table).where(*conditions))
        rows = db.scalars(
            select(entity.table)
            .where(*conditions)
            .options(*entity.load)
            .order_by(*inspect(entity.table).primary_key)
            .limit(args.limit)
            .offset(args.offset)
        )
        return {entity.plural: [entity.render(row) for row in rows], "total": total}

    into.add(
        f"{entity.name}_list",
        list_,
        input_model=filters,
        description=description or f"List {entity.plural.replace('_', ' ')}, optionally filtered.",
        read_only=True,
        example=example if example is not None else {},
        **options,
    )


def add_update(
    into: Declarer,
    entity: Entity[Any],
    model: type[Input],
    *,
    example: dict[str, Any],
    check: UpdateCheck | None = None,
    description: str | None = None,
    **options: Any,
) -> None:
    """A partial update: only the fields given change; null clears a field that may be empty."""
    columns = inspect(entity.table).columns
    editable = [f for f in model.model_fields if f != entity.id_field]

    def update(ctx: CallContext, args: Any) -> dict[str, Any]:
        db = ctx.db
        record = entity.fetch(db, getattr(args, entity.id_field))
        if entity.guard is not None:
            entity.guard(record)
        changes = {f: getattr(args, f) for f in editable if f in args.model_fields_set}
        if not changes:
            raise InvalidRequest(f"nothing to change; give at least one of: {', '.join(editable)}")
        for field, value in changes.items():
            if value is None and field in columns and not columns[field].nullable:
                raise InvalidRequest(f"{field} cannot be null; omit it to keep the current value")
        if check is not None:
            check(db, record, changes)
        for field, value in changes.items():
            setattr(record, field, value)
        flush(db, f"{entity.name} {record.id}")
        return {entity.name: entity.render(record)}

    into.add(
        f"{entity.name}_update",
        update,
        input_model=model,
        description=description or f"Change some fields of a {entity.name.replace('_', ' ')}.",
        idempotent=True,
        example=example,
        **options,
    )


def add_delete(
    into: Declarer,
    entity: Entity[Any],
    *,
    example_id: int,
    check: DeleteCheck | None = None,
    description: str | None = None,
    **options: Any,
) -> None:
    """A delete; `check` may refuse it or report what else it touched."""

    def delete(ctx: CallContext, args: Any) -> dict[str, Any]:
        db = ctx.db
        record_id = getattr(args, entity.id_field)
        record = entity.fetch(db, record_id)
        if entity.guard is not None:
            entity.guard(record)
        extra = check(db, record) if check is not None else {}
        db.delete(record)
        flush(db, f"deleting {entity.name} {record_id}")
        return {"deleted": {entity.id_field: record_id}, **extra}

    into.add(
        f"{entity.name}_delete",
        delete,
        input_model=id_model(entity, "Delete"),
        description=description or f"Delete a {entity.name.replace('_', ' ')}.",
        destructive=True,
        idempotent=True,
        example={entity.id_field: example_id},
        **options,
    )


def id_model(entity: Entity[Any], verb: str) -> type[Input]:
    """`{<entity>_id: int ≥ 1}` as an input model named after the entity and verb."""
    name = "".join(part.title() for part in entity.name.split("_")) + verb
    return create_model(name, __base__=Input, __module__=__name__, **{entity.id_field: (Id, ...)})

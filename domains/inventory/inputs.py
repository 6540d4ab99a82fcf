"""The arguments of the catalogue and stock capabilities (purchasing, reservations, counts and
reports are in inputs_flow.py). Field names say what they hold; a description is given only
where the name alone does not."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, WithJsonSchema, model_validator

from domains.inventory.tables import MovementKind
from facade.kit import Id, Input
from facade.kit import Page as KitPage



def _not_zero(value: Decimal) -> Decimal:
    if value == 0:
        raise ValueError("must not be 0; a negative quantity removes stock, a positive one adds it")
    return value


# Decimals announce themselves as plain numbers: pydantic's default `number | string` union
# costs bytes in every schema that has a quantity, and a model sends numbers anyway.
Quantity = Annotated[
    Decimal, Field(gt=0, max_digits=18, decimal_places=3), WithJsonSchema({"type": "number", "exclusiveMinimum": 0})
]
Level = Annotated[
    Decimal, Field(ge=0, max_digits=18, decimal_places=3), WithJsonSchema({"type": "number", "minimum": 0})
]
Delta = Annotated[
    Decimal, Field(max_digits=18, decimal_places=3), AfterValidator(_not_zero), WithJsonSchema({"type": "number"})
]
Cost = Annotated[
    Decimal, Field(ge=0, max_digits=18, decimal_places=4), WithJsonSchema({"type": "number", "minimum": 0})
]
# Codes and SKUs are stored upper-case, so that "a-01" and "A-01" can never both exist.
CODE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._/-]*$"
Code = Annotated[str, Field(min_length=1, max_length=32, pattern=CODE_PATTERN), AfterValidator(str.upper)]
Sku = Annotated[str, Field(min_length=1, max_length=64, pattern=CODE_PATTERN), AfterValidator(str.upper)]
WarehouseCode = Annotated[
    str, Field(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9-]+$"), AfterValidator(str.upper)
]
Name = Annotated[str, Field(min_length=1, max_length=120)]
Text = Annotated[str, Field(max_length=5000)]
Lot = Annotated[str, Field(max_length=64)]
Reference = Annotated[str, Field(max_length=120)]
Reason = Annotated[str, Field(min_length=3, max_length=500)]
Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
Unit = Annotated[str, Field(min_length=1, max_length=16, description="E.g. pcs, kg, m, box.")]


def _refuse_nul(value: Any) -> Any:
    """PostgreSQL cannot store a NUL character in text; refuse it here, where the message can
    name the argument, rather than as a database error."""
    if isinstance(value, str) and "\x00" in value:
        raise ValueError("text must not contain NUL characters")
    if isinstance(value, dict):
        return {k: _refuse_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_refuse_nul(v) for v in value]
    return value


class Args(Input):
    """Arguments with surrounding whitespace stripped, so that "  " is no name."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    _no_nul = model_validator(mode="before")(_refuse_nul)


class Page(KitPage):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    _no_nul = model_validator(mode="before")(_refuse_nul)


# Categories


class CategoryCreate(Args):
    name: Annotated[str, Field(min_length=1, max_length=80)]
    description: Text = ""


class CategoryUpdate(Args):
    category_id: Id
    name: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    description: Text | None = None


# Warehouses and locations


class WarehouseCreate(Args):
    code: WarehouseCode
    name: Name
    address: Text = ""


class WarehouseUpdate(Args):
    warehouse_id: Id
    code: WarehouseCode | None = None
    name: Name | None = None
    address: Text | None = None


class LocationCreate(Args):
    warehouse_id: Id
    code: Code
    description: Annotated[str, Field(max_length=200)] = ""


class LocationFilter(Page):
    warehouse_id: Id | None = None


# Items


def zero() -> Any:
    """A Decimal default of 0 that the schema shows as the number 0 (not the string "0")."""
    return Field(default=Decimal(0), json_schema_extra={"default": 0})


class ItemCreate(Args):
    sku: Sku
    name: Annotated[str, Field(min_length=1, max_length=200)]
    unit: Unit
    description: Text = ""
    category_id: Id | None = None
    supplier_id: Id | None = Field(None, description="Preferred supplier.")
    unit_cost: Cost = zero()
    reorder_point: Level = zero()
    reorder_quantity: Level = zero()
    track_lots: bool = False


class ItemUpdate(Args):
    item_id: Id
    sku: Sku | None = None
    name: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    description: Text | None = None
    category_id: Id | None = None
    supplier_id: Id | None = None
    unit: Unit | None = None
    unit_cost: Cost | None = Field(None, description="Only while nothing is on hand.")
    reorder_point: Level | None = None
    reorder_quantity: Level | None = None
    track_lots: bool | None = None


class ItemFilter(Page):
    category_id: Id | None = None
    supplier_id: Id | None = None
    query: Annotated[str, Field(min_length=1, max_length=100, description="Part of the SKU or name.")] | None = None
    below_reorder: bool = Field(False, description="Only items whose total on hand is at or below the reorder point.")
    include_archived: bool = False


class ItemRef(Args):
    item_id: Id


# Suppliers


class SupplierCreate(Args):
    name: Name
    email: Email | None = None
    phone: Annotated[str, Field(max_length=40)] | None = None
    lead_time_days: int = Field(7, ge=0, le=365)
    notes: Text = ""


class SupplierUpdate(Args):
    supplier_id: Id
    name: Name | None = None
    email: Email | None = None
    phone: Annotated[str, Field(max_length=40)] | None = None
    lead_time_days: int | None = Field(None, ge=0, le=365)
    notes: Text | None = None


# Stock and movements


class StockFilter(Page):
    item_id: Id | None = None
    location_id: Id | None = None
    warehouse_id: Id | None = None
    include_empty: bool = Field(False, description="Also levels at zero.")


class StockReceive(Args):
    item_id: Id
    location_id: Id
    quantity: Quantity
    unit_cost: Cost | None = Field(None, description="Default: the item's current unit cost.")
    lot: Lot = ""
    reference: Reference = Field("", description="E.g. a delivery note number.")


class StockIssue(Args):
    item_id: Id
    location_id: Id
    quantity: Quantity
    lot: Lot = ""
    reason: Annotated[str, Field(max_length=500)] = ""
    reference: Reference = Field("", description="E.g. a work or sales order number.")


class StockTransfer(Args):
    item_id: Id
    from_location_id: Id
    to_location_id: Id
    quantity: Quantity
    lot: Lot = ""


class StockAdjust(Args):
    item_id: Id
    location_id: Id
    quantity: Delta = Field(description="Signed change; negative removes stock.")
    lot: Lot = ""
    reason: Reason


class MovementFilter(Page):
    item_id: Id | None = None
    location_id: Id | None = None
    kind: MovementKind | None = None
    date_from: date | None = None
    date_to: date | None = None


class MovementReverse(Args):
    movement_id: Id
    reason: Reason


class AdjustLine(Args):
    item_id: Id
    location_id: Id
    quantity: Delta = Field(description="Signed change.")
    lot: Lot = ""


class StockBulkAdjust(Args):
    lines: list[AdjustLine] = Field(min_length=1, max_length=100)
    reason: Reason


class ItemBulkImport(Args):
    items: list[ItemCreate] = Field(min_length=1, max_length=200)
    update_existing: bool = Field(False, description="Update items whose SKU exists instead of refusing them.")


class LocationBulkCreate(Args):
    warehouse_id: Id
    codes: list[Code] = Field(min_length=1, max_length=200)
    description: Annotated[str, Field(max_length=200)] = ""


Format = Literal["json", "csv"]

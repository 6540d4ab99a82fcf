"""Customers and vendors: plain records of one shape, kept once they have documents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import ColumnElement
from sqlalchemy.orm import Session

from domains.finance import inputs, reference
from domains.finance.entities import CUSTOMER, VENDOR
from facade.kit import Entity, Input, Toolset, contains_text, records

tools = Toolset()


def _name_contains(table: type[Any]) -> Callable[[inputs.Search], list[ColumnElement[bool]]]:
    def where(args: inputs.Search) -> list[ColumnElement[bool]]:
        return [] if args.search is None else [contains_text(table.name, args.search)]

    return where


def _register(
    entity: Entity[Any],
    models: tuple[type[Input], type[Input]],
    examples: tuple[dict[str, Any], dict[str, Any]],
    check_delete: Callable[[Session, Any], dict[str, Any]],
) -> None:
    create, update = models
    records.add_create(tools, entity, create, example=examples[0])
    records.add_get(tools, entity, example_id=1)
    records.add_list(tools, entity, inputs.Search, example={}, where=_name_contains(entity.table))
    records.add_update(tools, entity, update, example=examples[1])
    # Example id 4: a record of the seed's that has no documents, for this example alone.
    records.add_delete(
        tools, entity, example_id=4, check=check_delete, description=f"Delete a {entity.name} that has no documents."
    )


_register(
    CUSTOMER,
    (inputs.CustomerCreate, inputs.CustomerUpdate),
    (
        {"name": "Nordlicht Events GmbH", "email": "billing@nordlicht.example", "payment_terms_days": 30},
        {"customer_id": 3, "address": "Lindenstrasse 4a, 10969 Berlin"},
    ),
    reference.check_customer_delete,
)
_register(
    VENDOR,
    (inputs.VendorCreate, inputs.VendorUpdate),
    (
        {"name": "Druckerei Weiss", "email": "auftrag@druckerei-weiss.example", "payment_terms_days": 14},
        {"vendor_id": 3, "tax_number": "DE277654321"},
    ),
    reference.check_vendor_delete,
)

"""The announced schema keeps every parameter and drops what changes nothing for the model."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from facade.kit.capability import CallContext, Input, make_capability, parsed_model_for
from facade.catalogue.schema import announced_schema, announced_tool, compact_json


class Line(BaseModel):
    sku: str
    qty: int = Field(ge=1)


class Order(Input):
    title: str = Field(description="Shown on the invoice.")
    lines: list[Line]
    note: str | None = None
    priority: Literal["low", "high"] = "low"


class Tree(Input):
    name: str
    children: list["Tree"] = []


def order_create(ctx: CallContext, args: Order) -> dict:
    """Create an order."""
    return {}


def tree_put(ctx: CallContext, args: Tree) -> dict:
    """Store a tree."""
    return {}


class TestAnnouncedSchema:
    """Identity, $schema, titles, null defaults and null-unions go; parameters stay."""

    def test_drops_identity_and_prose(self) -> None:
        cap = make_capability("shop.order_create", order_create)
        schema = announced_schema(cap.parsed_model)
        text = compact_json(schema)
        assert "auth_token" not in text and "conversation_id" not in text
        assert '"title":{' in text  # the parameter named title survives
        assert '"title":"' not in text and "$schema" not in text
        assert set(schema["properties"]) == {"title", "lines", "note", "priority"}
        assert schema["required"] == ["title", "lines"]
        assert schema["properties"]["note"] == {"type": "string"}
        assert schema["properties"]["title"]["description"] == "Shown on the invoice."

    def test_defs_inlined_when_smaller(self) -> None:
        schema = announced_schema(make_capability("shop.order_create", order_create).parsed_model)
        assert "$defs" not in schema and "$ref" not in compact_json(schema)
        assert schema["properties"]["lines"]["items"]["properties"]["qty"] == {"type": "integer"}

    def test_bounds_that_say_something_stay(self) -> None:
        class Rate(Input):
            stars: int = Field(ge=1, le=5)
            note: str = Field(default="", min_length=1, max_length=2000)
            code: str = Field(min_length=3, max_length=8)
            limit: int = Field(default=50, ge=1, le=200)

        def rate(ctx: CallContext, args: Rate) -> dict:
            """Rate something."""
            return {}

        cap = make_capability("shop.rate", rate, input_model=Rate)
        props = announced_schema(cap.parsed_model)["properties"]
        assert props["stars"] == {"type": "integer", "maximum": 5}
        assert props["note"] == {"type": "string"}
        assert props["code"] == {"type": "string", "minLength": 3, "maxLength": 8}
        assert props["limit"] == {"type": "integer", "default": 50, "maximum": 200}
        # ...and the parsed model still refuses what the announced schema no longer says.
        with pytest.raises(ValidationError):
            cap.parsed_model.model_validate({"stars": 0, "code": "abc", "auth_token": "", "conversation_id": ""})

    def test_recursive_defs_are_kept(self) -> None:
        schema = announced_schema(make_capability("garden.tree_put", tree_put).parsed_model)
        assert "$defs" in schema and "$ref" in compact_json(schema)

    def test_the_input_model_is_shown_as_its_parsed_model(self) -> None:
        """`announced_tool` derives the schema from the input model, without making the parsed
        model: it must be the parsed model's, for every bundled capability and the odd shapes
        (a model that refers to itself, one that allows extras, a plain pydantic model)."""
        from pydantic import ConfigDict

        from facade.catalogue.discovery import discover

        class Loose(BaseModel):
            model_config = ConfigDict(extra="allow")
            name: str
            tags: dict[str, int] = {}

        models = [c.input_model for c in discover()] + [Order, Tree, Loose, Line]
        for model in models:
            assert announced_schema(model) == announced_schema(parsed_model_for(model)), model.__qualname__
        assert "additionalProperties" not in announced_schema(Loose)  # the parsed model refuses extras
        assert announced_schema(Loose)["properties"]["tags"]["additionalProperties"] == {"type": "integer"}

    def test_parsed_model_still_validates_everything(self) -> None:
        cap = make_capability("shop.order_create", order_create)
        args = cap.parsed_model.model_validate(
            {"title": "t", "lines": [{"sku": "a", "qty": 2}], "note": None, "auth_token": "", "conversation_id": ""}
        )
        assert args.note is None and args.lines[0].qty == 2

    def test_annotations_only_when_they_differ_from_the_defaults(self) -> None:
        assert announced_tool(make_capability("shop.order_create", order_create, read_only=True))["annotations"] == {
            "readOnlyHint": True
        }
        assert announced_tool(make_capability("shop.order_create", order_create, destructive=True)).get(
            "annotations"
        ) is None
        assert "annotations" not in announced_tool(make_capability("shop.order_create", order_create))

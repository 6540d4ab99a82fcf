"""An input model's fields share one empty qualifier set (facade/kit/field_memory.py), and a
model built that way behaves exactly as its twin on a plain `BaseModel` does."""

from __future__ import annotations

import copy
from typing import Annotated, ClassVar, Final, Generic, Literal, TypeVar

import pytest
from pydantic import BaseModel, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from facade.kit import Input

T = TypeVar("T")


class Plain(BaseModel):
    """The twin's base: Input's config, without the sharing."""

    model_config = Input.model_config


def _fields() -> dict:
    return {
        "record_id": (int, Field(ge=1, description="Which record.")),
        "limit": (int, Field(default=20, ge=1, le=200, description="At most this many.")),
        "order": (Literal["newest", "oldest"], Field(default="newest")),
        "name": (Annotated[str | None, Field(max_length=8, description="A name.")], None),
        "tags": (list[str], Field(default_factory=list)),
    }


def _pair(name: str) -> tuple[type[BaseModel], type[BaseModel]]:
    return (
        create_model(name, __base__=Input, **_fields()),
        create_model(name, __base__=Plain, **_fields()),
    )


def _qualifier_sets(model: type[BaseModel]) -> list[object]:
    sets = []
    for field in model.__pydantic_fields__.values():
        sets.append(field._qualifiers)
        original = field._original_assignment
        if isinstance(original, FieldInfo):
            sets.append(original._qualifiers)
    return sets


def test_pydantic_still_gives_each_field_a_set_of_its_own():
    # If this fails, pydantic keeps qualifiers another way: the sharing has become a no-op and
    # the README's memory figures must be measured again. (A pydantic that wrote to a built
    # field's set would fail the twin tests below instead, with an AttributeError.)
    assert type(FieldInfo()._qualifiers) is set
    assert type(create_model("P", __base__=Plain, x=(int, 1)).__pydantic_fields__["x"]._qualifiers) is set


def test_every_empty_qualifier_set_of_a_catalogue_is_one_object():
    models = [_pair(f"M{i}")[0] for i in range(20)]
    sets = [s for model in models for s in _qualifier_sets(model)]
    assert len(sets) > 20 * 5
    assert {id(s) for s in sets} == {id(sets[0])}
    # A frozenset, not one shared set(): if pydantic ever added to a built field's set, it
    # must fail loudly here rather than give every field in the catalogue the qualifier.
    assert type(sets[0]) is frozenset and not sets[0]


def test_a_field_with_a_qualifier_keeps_its_own():
    class WithFinal(Input):
        fixed: Final[int]
        kind: ClassVar[str] = "k"

    assert WithFinal.__pydantic_fields__["fixed"]._qualifiers == {"final"}
    assert type(WithFinal.__pydantic_fields__["fixed"]._qualifiers) is set
    assert "kind" not in WithFinal.__pydantic_fields__


@pytest.mark.parametrize(
    "args",
    [
        {"record_id": 3},
        {"record_id": "4", "limit": 200, "order": "oldest", "name": "  ab  ", "tags": ["x"]},
        {"record_id": 0},
        {"record_id": 1, "limit": 201},
        {"record_id": 1, "order": "sideways"},
        {"record_id": 1, "name": "far too long a name"},
        {"record_id": 1, "unknown": True},
        {},
    ],
)
def test_a_shared_model_validates_as_its_twin(args):
    shared, plain = _pair("Twin")

    def outcome(model: type[BaseModel]) -> object:
        try:
            return model.model_validate(args).model_dump()
        except ValidationError as error:
            return error.errors(include_url=False)

    assert outcome(shared) == outcome(plain)
    assert shared.model_json_schema() == plain.model_json_schema()


def test_subclasses_generics_rebuilds_and_copies_keep_every_constraint():
    shared, plain = _pair("Base")

    def family(base: type[BaseModel]) -> list[type[BaseModel]]:
        class Child(base):  # type: ignore[misc, valid-type]
            extra: int = Field(default=1, le=5)

        class Paged(Child, Generic[T]):  # type: ignore[misc, valid-type]
            item: T | None = None

        rebuilt = create_model("Rebuilt", __base__=Child)
        rebuilt.model_rebuild(force=True)
        return [Child, Paged[int], rebuilt]

    mine_all = family(shared)
    for mine, theirs in zip(mine_all, family(plain), strict=True):
        assert mine.model_json_schema() == theirs.model_json_schema()
        with pytest.raises(ValidationError):
            mine.model_validate({"record_id": 0})
        with pytest.raises(ValidationError):
            mine.model_validate({"record_id": 1, "extra": 6})
    paged = mine_all[1]
    assert paged.model_validate({"record_id": 2, "item": "7"}).item == 7
    instance = shared(record_id=5, tags=["a"])
    assert copy.deepcopy(instance) == instance
    assert copy.deepcopy(shared.model_fields)["limit"].metadata == plain.model_fields["limit"].metadata


def test_a_nested_model_and_a_forward_reference_build_as_before():
    class Inner(Input):
        depth: int = Field(ge=0)

    class Outer(Input):
        inner: Inner
        later: Later | None = None  # noqa: F821 - defined below, resolved by the rebuild

    class Later(Input):
        note: str = Field(min_length=1)

    Outer.model_rebuild(_types_namespace={"Later": Later, "Inner": Inner})
    value = Outer.model_validate({"inner": {"depth": 1}, "later": {"note": " x "}})
    assert value.later is not None and value.later.note == "x"
    with pytest.raises(ValidationError):
        Outer.model_validate({"inner": {"depth": -1}})
    with pytest.raises(ValidationError):
        Outer.model_validate({"inner": {"depth": 1}, "later": {"note": "  "}})

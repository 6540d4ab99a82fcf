"""Declaring capabilities: every mistake a declaration can make stops start-up, naming it."""

from __future__ import annotations

import pytest
from pydantic import Field

from facade.kit.capability import IDENTITY_FIELDS, CallContext, Input, make_capability
from facade.kit.domain import Domain
from facade.errors import RegistryError
from facade.catalogue.registry import Registry


class Note(Input):
    text: str = Field(min_length=1)


def note_add(ctx: CallContext, args: Note) -> dict:
    """Add a note."""
    return {"text": args.text}


class TestDeclaration:
    """make_capability checks names, descriptions, handler signatures and examples."""

    def test_a_good_declaration(self) -> None:
        cap = make_capability("notes.add", note_add, example={"text": "hi"})
        assert (cap.domain, cap.action, cap.description, cap.input_model) == ("notes", "add", "Add a note.", Note)
        assert set(IDENTITY_FIELDS) <= set(cap.parsed_model.model_fields)
        for name in IDENTITY_FIELDS:
            assert cap.parsed_model.model_fields[name].description is None
            assert cap.parsed_model.model_fields[name].is_required()
        assert not cap.is_async

    @pytest.mark.parametrize("name", ["Notes.add", "notes", "notes.", "notes.add.more", "1notes.add", "notes.Add"])
    def test_malformed_names(self, name: str) -> None:
        with pytest.raises(RegistryError, match=repr(name).replace(".", r"\.")):
            make_capability(name, note_add)

    def test_missing_description(self) -> None:
        def bare(ctx: CallContext, args: Note) -> dict:
            return {}

        with pytest.raises(RegistryError, match="'notes.bare': missing description"):
            make_capability("notes.bare", bare)

    def test_handler_that_does_not_fit(self) -> None:
        def one(args: Note) -> dict:
            """One parameter."""
            return {}

        def three(ctx: CallContext, args: Note, extra: int) -> dict:
            """Three parameters."""
            return {}

        with pytest.raises(RegistryError, match=r"must take \(ctx, args\); it takes \(args\)"):
            make_capability("notes.one", one, input_model=Note)
        with pytest.raises(RegistryError, match=r"it takes \(ctx, args, extra\)"):
            make_capability("notes.three", three)

    def test_unannotated_input(self) -> None:
        def loose(ctx, args):  # type: ignore[no-untyped-def]
            """No annotations."""

        with pytest.raises(RegistryError, match="annotate the handler's second parameter"):
            make_capability("notes.loose", loose)

    def test_identity_declared_by_the_domain(self) -> None:
        class Sneaky(Input):
            auth_token: str

        def sneaky(ctx: CallContext, args: Sneaky) -> dict:
            """Declares identity itself."""
            return {}

        with pytest.raises(RegistryError, match="declares auth_token"):
            make_capability("notes.sneaky", sneaky, input_model=Sneaky)

    def test_example_must_validate(self) -> None:
        with pytest.raises(RegistryError, match="example does not validate"):
            make_capability("notes.add", note_add, example={"text": ""})

    def test_tier_and_approval(self) -> None:
        with pytest.raises(RegistryError, match="tier must be"):
            make_capability("notes.add", note_add, tier="extra")
        with pytest.raises(RegistryError, match="approval must be"):
            make_capability("notes.add", note_add, approval=3)


class TestRegistry:
    """The registry refuses clashes and capabilities filed under the wrong domain."""

    def test_duplicate_capability(self) -> None:
        domain = Domain("notes")
        domain.add("add", note_add)
        domain.add("add", note_add)
        with pytest.raises(RegistryError, match="'notes.add' is declared twice"):
            Registry([domain])

    def test_same_domain_name_from_two_modules(self) -> None:
        a, b = Domain("notes"), Domain("notes")
        a.add("add", note_add)
        b.add("add", note_add)
        with pytest.raises(RegistryError, match="'notes' is registered twice"):
            Registry([a, b])

    def test_wrong_prefix(self) -> None:
        domain = Domain("notes")
        domain.capabilities.append(make_capability("memos.add", note_add))
        with pytest.raises(RegistryError, match="'memos.add' is declared in domain 'notes'"):
            Registry([domain])

    def test_bad_domain_name(self) -> None:
        with pytest.raises(RegistryError, match="domain 'Notes'"):
            Domain("Notes")

"""Declaring capabilities: every mistake a declaration can make stops start-up, naming it."""

from __future__ import annotations

import json

import pytest
from pydantic import Field

from facade.catalogue.registry import Registry
from facade.catalogue.schema import announced_tool
from facade.errors import RegistryError
from facade.kit import Approval, Toolset, records
from facade.kit.capability import IDENTITY_FIELDS, CallContext, Input, example_problem, make_capability
from facade.kit.domain import Domain


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

    def test_the_signature_read_off_the_code_is_inspects(self) -> None:
        """The quick count of a plain function's required parameters agrees with
        `inspect.signature` wherever it answers, and leaves every other callable to it."""
        import functools
        import inspect

        from facade.kit.capability import _required_parameters, _signature_counts

        def counted(function: object) -> tuple[int, int]:
            return _signature_counts(inspect.signature(function).parameters.values())  # type: ignore[arg-type]

        def plain(ctx, args): ...  # type: ignore[no-untyped-def]
        def defaulted(ctx, args, extra=1): ...  # type: ignore[no-untyped-def]
        def three(ctx, args, extra): ...  # type: ignore[no-untyped-def]
        def only(ctx, args, /): ...  # type: ignore[no-untyped-def]
        def starred(ctx, *args, **kwargs): ...  # type: ignore[no-untyped-def]
        def keyword(ctx, args, *, must): ...  # type: ignore[no-untyped-def]
        def keyword_default(ctx, args, *, may=None): ...  # type: ignore[no-untyped-def]
        async def asynchronous(ctx, args): ...  # type: ignore[no-untyped-def]
        quick = [plain, defaulted, three, only, starred, keyword, keyword_default, asynchronous, lambda ctx, args: None]
        expected = [(2, 0), (2, 0), (3, 0), (2, 0), (1, 0), (2, 1), (2, 0), (2, 0), (2, 0)]
        assert [counted(function) for function in quick] == expected
        for function in quick:
            assert _required_parameters(function) == counted(function), function.__name__

        @functools.wraps(three)
        def wrapped(*a, **k): ...  # type: ignore[no-untyped-def]

        class Handler:
            def __call__(self, ctx, args): ...  # type: ignore[no-untyped-def]

            def method(self, ctx, args): ...  # type: ignore[no-untyped-def]

        others = [wrapped, functools.partial(three, extra=1), Handler(), Handler().method, print]
        assert [_required_parameters(other) for other in others] == [None] * len(others)
        assert counted(wrapped) == (3, 0)  # inspect follows __wrapped__, which the code of `wrapped` would not

        with pytest.raises(RegistryError, match=r"it takes \(ctx, args, must\)"):
            make_capability("notes.keyword", keyword, input_model=Note, description="Keyword-only.")
        with pytest.raises(RegistryError, match=r"it takes \(ctx, args, extra\)"):
            make_capability("notes.wrapped", wrapped, input_model=Note, description="Wrapped.")
        make_capability("notes.partial", functools.partial(three, extra=1), input_model=Note, description="Bound.")

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

    def test_a_root_model_is_refused(self) -> None:
        """Its parsed model could not add the identity fields: every call would fail."""
        from pydantic import RootModel

        class Names(RootModel[list[str]]):
            pass

        with pytest.raises(RegistryError, match="must name its arguments as fields; Names is a RootModel"):
            make_capability("notes.names", note_add, input_model=Names)  # type: ignore[arg-type]

    def test_an_example_is_only_shape_checked(self) -> None:
        with pytest.raises(RegistryError, match="example must map argument names to values"):
            make_capability("notes.add", note_add, example=["text"])  # type: ignore[arg-type]
        wrong = make_capability("notes.add", note_add, example={"text": ""})  # validated by facade check
        assert example_problem(wrong) == "notes.add's example does not validate against Note: text: String should have at least 1 character"
        assert example_problem(make_capability("notes.add", note_add, example={"text": "milk"})) is None
        assert example_problem(make_capability("notes.add", note_add)) is None

    def test_tier_and_approval(self) -> None:
        with pytest.raises(RegistryError, match="tier must be"):
            make_capability("notes.add", note_add, tier="extra")
        with pytest.raises(RegistryError, match="approval must be"):
            make_capability("notes.add", note_add, approval=3)


class TestApproval:
    """Approval levels are typed (an IntEnum) yet declared and sent as the plain 0, 1 and 2."""

    @pytest.mark.parametrize(("given", "level"), [(0, Approval.NONE), (1, Approval.HOST), (2, Approval.OPERATOR)])
    def test_plain_ints_become_levels(self, given: int, level: Approval) -> None:
        cap = make_capability("notes.add", note_add, approval=given)
        assert cap.approval is level and cap.approval == given

    def test_levels_are_accepted_as_such(self) -> None:
        assert make_capability("notes.add", note_add, approval=Approval.HOST).approval is Approval.HOST
        assert make_capability("notes.add", note_add).approval is Approval.NONE

    @pytest.mark.parametrize("given", [3, -1, True, "2", None])
    def test_anything_else_is_refused(self, given: object) -> None:
        with pytest.raises(RegistryError, match=r"approval must be 0, 1 or 2"):
            make_capability("notes.add", note_add, approval=given)  # type: ignore[arg-type]

    def test_the_wire_carries_the_same_number(self) -> None:
        held = announced_tool(make_capability("notes.add", note_add, approval=Approval.OPERATOR))
        assert json.dumps(held["_meta"]) == '{"facade/approval": 2}'
        assert "_meta" not in announced_tool(make_capability("notes.add", note_add))


def note_list(ctx: CallContext, args: Note) -> dict:
    """List notes."""
    return {}


class TestToolset:
    """A concept module declares into a Toolset; the Domain built from toolsets names and checks
    every declaration, in toolset order, as if it had been declared on the domain itself."""

    def test_declarations_become_the_domains_capabilities_in_order(self) -> None:
        first, second = Toolset(), Toolset()
        decorated = first.capability("add", example={"text": "hi"})(note_add)
        second.add("list", note_list, read_only=True)
        first.add("bulk_add", note_add)
        domain = Domain("notes", toolsets=(first, second))
        assert decorated is note_add
        assert [c.name for c in domain.capabilities] == ["notes.add", "notes.bulk_add", "notes.list"]
        assert [c.tier for c in domain.capabilities] == ["core", "full", "core"]  # the domain's criterion
        assert domain.capabilities[2].annotations.read_only

    def test_the_kit_builders_declare_into_a_toolset(self) -> None:
        tools = Toolset()

        class Entry:
            id = 0

        entity = records.Entity("notes", "note", "notes", Entry, render=lambda n: {})  # type: ignore[arg-type]
        records.add_get(tools, entity, example_id=1)
        assert [c.name for c in Domain("notes", toolsets=(tools,)).capabilities] == ["notes.note_get"]

    def test_a_bad_declaration_names_the_capability_when_the_domain_is_built(self) -> None:
        tools = Toolset()
        tools.add("add", note_add, example="text")  # type: ignore[arg-type]  # nothing is checked yet
        with pytest.raises(RegistryError, match="'notes.add': its example must map argument names to values"):
            Domain("notes", toolsets=(tools,))

    def test_reads_names_the_fields_a_shared_handler_needs(self) -> None:
        with pytest.raises(RegistryError, match="'notes.add': its input model Note lacks note_id, which its handler reads"):
            make_capability("notes.add", note_add, reads=("text", "note_id"))

    def test_the_domain_still_declares_on_its_own(self) -> None:
        tools = Toolset()
        tools.add("add", note_add)
        domain = Domain("notes", toolsets=(tools,))
        domain.capability("list", read_only=True)(note_list)
        assert [c.name for c in domain.capabilities] == ["notes.add", "notes.list"]


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

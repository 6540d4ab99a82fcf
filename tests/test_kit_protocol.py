"""The kit's protocol declarations as pure functions: content blocks, resources and templates,
prompts, wire names, questions and progress — each refusing what a declaration can get wrong."""

from __future__ import annotations

import anyio
import pytest

from facade.catalogue.registry import Registry
from facade.errors import InvalidRequest, RegistryError
from facade.kit import Argument, CallContext, CannotAsk, Content, Domain, Embedded, Image, Input, Message, Text, each, progress
from facade.kit.asking import Question, ask_async, schema_of
from facade.kit.capability import make_capability
from facade.kit.prompts import make_prompt
from facade.kit.resources import make_resource


class Nothing(Input):
    pass


def noop(ctx: CallContext, args: Nothing) -> dict:
    """Does nothing."""
    return {}


def reader(ctx: CallContext, params: dict[str, str]) -> str:
    """Reads."""
    return "x"


class TestContent:
    def test_strings_become_text_and_order_is_kept(self) -> None:
        made = Content("a", Image(b"png"), data={"n": 1})
        assert made.blocks == (Text("a"), Image(b"png")) and made.data == {"n": 1}

    def test_refuses_what_is_not_a_block(self) -> None:
        with pytest.raises(TypeError, match="not dict"):
            Content({"a": 1})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="at least one block"):
            Content()

    def test_embedded_needs_exactly_one_of_text_and_blob(self) -> None:
        with pytest.raises(ValueError, match="exactly one"):
            Embedded("test://x")
        with pytest.raises(ValueError, match="exactly one"):
            Embedded("test://x", text="a", blob=b"b")


class TestResources:
    def test_template_parts_are_matched(self) -> None:
        template = make_resource("test://item/{id}/part/{name}", reader, name="item")
        assert template.is_template and template.parts == ("id", "name")
        assert template.match("test://item/12/part/a.b") == {"id": "12", "name": "a.b"}
        assert template.match("test://item/12/part/") is None and template.match("test://item/1/2/part/x") is None
        fixed = make_resource("test://plain", reader, name="plain")
        assert fixed.match("test://plain") == {} and fixed.match("test://plain2") is None

    def test_refuses_a_bad_declaration(self) -> None:
        with pytest.raises(RegistryError, match="scheme://path"):
            make_resource("no scheme", reader, name="x")
        with pytest.raises(RegistryError, match="no \\{part\\} for"):
            make_resource("test://item/{id}", reader, name="x", complete={"other": lambda v: []})

    def test_registry_refuses_a_uri_twice(self) -> None:
        first, second = Domain("first"), Domain("second")
        for domain in (first, second):
            domain.add("noop", noop, tier="core")
            domain.resource("test://same", name="same")(reader)
        registry = Registry([first])
        with pytest.raises(RegistryError, match="resource 'test://same' is declared twice"):
            registry.add_domain(second)


class TestPrompts:
    def test_renders_and_checks_arguments(self) -> None:
        prompt = make_prompt("greet", lambda a: f"hi {a['who']}", description="Greets.", arguments=(Argument("who"),))
        assert prompt.messages({"who": "ada"}) == [Message("user", "hi ada")]
        with pytest.raises(InvalidRequest, match="`who` is required; `extra` is not an argument of it"):
            prompt.messages({"extra": "x"})

    def test_refuses_a_bad_declaration(self) -> None:
        with pytest.raises(RegistryError, match="1-64 letters"):
            make_prompt("has space", lambda a: "x", description="d")
        with pytest.raises(RegistryError, match="declared twice"):
            make_prompt("p", lambda a: "x", description="d", arguments=(Argument("a"), Argument("a")))


class TestWireNames:
    def test_announced_and_resolved_by_it(self) -> None:
        cap = make_capability("fixtures.simple", noop, wire_name="test_simple")
        assert cap.tool_name == "test_simple" and make_capability("fixtures.other", noop).tool_name == "fixtures.other"

    def test_refuses_a_bad_or_taken_wire_name(self) -> None:
        with pytest.raises(RegistryError, match="wire name"):
            make_capability("fixtures.simple", noop, wire_name="has space")
        domain = Domain("fixtures")
        domain.add("one", noop, tier="core", wire_name="same")
        domain.add("two", noop, tier="core", wire_name="same")
        with pytest.raises(RegistryError, match="wire name 'same' is taken"):
            Registry([domain])

    def test_refuses_a_wire_name_another_domain_announces(self) -> None:
        first = Domain("first")
        first.add("one", noop, tier="core", wire_name="same")
        first.add("two", noop, tier="core")
        for taken in ("same", "first.two"):  # another's wire name, another's plain name
            second = Domain("second")
            second.add("one", noop, tier="core", wire_name=taken)
            with pytest.raises(RegistryError, match=f"wire name '{taken}' is taken"):
                Registry([first, second])
        second = Domain("second")
        second.add("one", noop, tier="core", wire_name="first.one")  # a name listed by its wire name is free
        assert Registry([first, second]).get("second.one") is not None


class TestQuestions:
    def test_key_names_the_exact_question(self) -> None:
        asked = Question("Run it?", {"type": "object", "properties": {}})
        assert asked.key == Question("Run it?", {"properties": {}, "type": "object"}).key
        assert asked.key != Question("Run it now?", {"type": "object", "properties": {}}).key

    def test_schema_of_a_model_has_no_titles(self) -> None:
        class Name(Input):
            name: str

        assert schema_of(Name) == {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": False}

    def test_no_client_to_ask(self) -> None:
        with pytest.raises(CannotAsk, match="no client"):
            anyio.run(ask_async, "Run it?", {"type": "object", "properties": {}})


class TestProgress:
    def test_each_reports_every_item_and_nothing_without_a_reporter(self) -> None:
        heard: list[tuple[float, float | None, str | None]] = []
        each(["a", "b"], "code", lambda c: {})  # no reporter: nothing to hear, nothing fails
        with progress.reporting(lambda d, t, m: heard.append((d, t, m))):
            each(["a", "b", "a"], "code", lambda c: {})
        assert heard == [(1, 2, "1 of 2 codes"), (2, 2, "2 of 2 codes")]

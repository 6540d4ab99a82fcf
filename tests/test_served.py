"""The announced-tools cache: a registry or view served again is found by identity, the announced
tools are kept on disk under the fingerprint of the code that made them, and capabilities that
share an input model share its parsed model (issue 17)."""

from __future__ import annotations

import gc
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from facade.catalogue.announced import CACHE_FILE, announced_tools
from facade.catalogue.discovery import discover
from facade.catalogue.registry import Registry
from facade.catalogue.schema import announced_tool
import facade.catalogue.served as served_module
from facade.catalogue.served import ServedCatalogues
from facade.kit import CallContext, Domain, Input
from facade.serving.metrics import Metrics
from facade.serving.pauses import THRESHOLDS, collector_paused, steady_collector


class Note(Input):
    text: str


def note_add(ctx: CallContext, args: Note) -> dict:
    """Add a note."""
    return {}


def notes(description: str = "Add a note.") -> Domain:
    domain = Domain("notes")
    domain.add("add", note_add, description=description, tier="core")
    domain.add("append", note_add, description="Append to a note.", tier="core")
    return domain


class TestServedByIdentity:
    """The same registry or tuple served again is answered without rebuilding its names."""

    def test_the_registry_is_found_again(self, monkeypatch: pytest.MonkeyPatch) -> None:
        registry = Registry([notes()])
        served = ServedCatalogues(registry)
        first = served.serve(registry)
        monkeypatch.setattr(Registry, "__iter__", lambda self: pytest.fail("the registry was walked again"))
        assert served.serve(registry) is first

    def test_a_grown_registry_is_served_anew(self) -> None:
        registry = Registry([notes()])
        files = discover().domain("files")
        assert files is not None
        served = ServedCatalogues([*registry, *files.capabilities])
        before = served.serve(registry)
        registry.add_domain(files)
        assert len(served.serve(registry).names) > len(before.names)

    def test_a_wire_keeps_its_bytes_and_derives_the_rest(self) -> None:
        served = ServedCatalogues(Registry([notes()])).serve(Registry([notes()]))
        wire = served.wire("2026-07-28")
        assert served.wire("2026-07-28") is wire
        assert wire.json.encode() == wire.encoded and wire.bytes == len(wire.encoded)
        assert [t["name"] for t in wire.tools] == ["notes.add", "notes.append"]


class TestBuiltOnFirstUse:
    """The announced tools are made when first needed (`facade stdio` answers its greeting
    without them, issue 17), once, however many threads ask at the same time."""

    def test_none_is_derived_or_written_until_asked(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        derived: list[str] = []
        monkeypatch.setattr(served_module, "announced_tool", lambda c: derived.append(c.name) or announced_tool(c))
        registry = Registry([notes()])
        served = ServedCatalogues(registry, cache=tmp_path)
        assert derived == [] and not (tmp_path / CACHE_FILE).exists()
        assert served.tool("notes.add")["name"] == "notes.add"
        assert sorted(derived) == ["notes.add", "notes.append"] and (tmp_path / CACHE_FILE).exists()

    def test_threads_that_ask_together_get_one_build(self, monkeypatch: pytest.MonkeyPatch) -> None:
        derived: list[str] = []
        entered = threading.Event()

        def slow(capability: Any) -> dict[str, Any]:
            entered.set()
            time.sleep(0.05)  # widens the window in which the others ask; no figure is asserted
            derived.append(capability.name)
            return announced_tool(capability)

        monkeypatch.setattr(served_module, "announced_tool", slow)
        registry = Registry([notes()])
        served = ServedCatalogues(registry)
        builders = [threading.Thread(target=served.build)] + [threading.Thread(target=served.serve, args=(registry,)) for _ in range(3)]
        for thread in builders:
            thread.start()
        for thread in builders:
            thread.join(timeout=60)
        assert entered.is_set() and sorted(derived) == ["notes.add", "notes.append"]
        assert served.serve(registry).names == ("notes.add", "notes.append")


class TestKeptOnDisk:
    def derive_counting(self) -> tuple[list[str], object]:
        seen: list[str] = []

        def derive(capability):  # type: ignore[no-untyped-def]
            seen.append(capability.name)
            return announced_tool(capability)

        return seen, derive

    def test_a_second_start_reads_them(self, tmp_path: Path) -> None:
        caps = notes().capabilities
        seen, derive = self.derive_counting()
        first = announced_tools(caps, derive, tmp_path)  # type: ignore[arg-type]
        assert (tmp_path / CACHE_FILE).exists() and len(seen) == 2
        assert announced_tools(caps, derive, tmp_path) == first  # type: ignore[arg-type]
        assert len(seen) == 2

    def test_a_changed_declaration_derives_them_again(self, tmp_path: Path) -> None:
        seen, derive = self.derive_counting()
        announced_tools(notes().capabilities, derive, tmp_path)  # type: ignore[arg-type]
        changed = announced_tools(notes("Add a short note.").capabilities, derive, tmp_path)  # type: ignore[arg-type]
        assert len(seen) == 4 and changed[0]["description"] == "Add a short note."

    def test_each_distinct_schema_is_kept_once(self, tmp_path: Path) -> None:
        first = announced_tools(notes().capabilities, announced_tool, tmp_path)  # type: ignore[arg-type]
        kept = json.loads((tmp_path / CACHE_FILE).read_text())
        assert kept["parts"] == [first[0]["inputSchema"]] and [t["inputSchema"] for t in kept["tools"]] == [0, 0]

    def test_the_capabilities_own_strings_are_not_kept_again(self, tmp_path: Path) -> None:
        """The name and description are the capability's (the fingerprint holds them): the file
        keeps their place, and a read tool holds the capability's very strings."""
        caps = notes().capabilities
        derived = announced_tools(caps, announced_tool, tmp_path)  # type: ignore[arg-type]
        kept = json.loads((tmp_path / CACHE_FILE).read_text())
        assert all(t["name"] is None and t["description"] is None for t in kept["tools"])
        read = announced_tools(caps, announced_tool, tmp_path)  # type: ignore[arg-type]
        assert read == derived and list(read[0]) == list(derived[0])
        assert all(t["name"] is c.tool_name and t["description"] is c.description for t, c in zip(read, caps))

    def test_a_file_of_inline_schemas_or_a_bad_index_derives_them_again(self, tmp_path: Path) -> None:
        seen, derive = self.derive_counting()
        announced_tools(notes().capabilities, derive, tmp_path)  # type: ignore[arg-type]
        kept = json.loads((tmp_path / CACHE_FILE).read_text())
        for damaged in ({**kept, "parts": None}, {**kept, "tools": [{**t, "inputSchema": 5} for t in kept["tools"]]}):
            (tmp_path / CACHE_FILE).write_text(json.dumps(damaged))
            assert announced_tools(notes().capabilities, derive, tmp_path)[0]["inputSchema"]["type"] == "object"  # type: ignore[arg-type]
        assert len(seen) == 6

    def test_a_damaged_file_derives_them_again(self, tmp_path: Path) -> None:
        seen, derive = self.derive_counting()
        (tmp_path / CACHE_FILE).write_text("{not json")
        assert announced_tools(notes().capabilities, derive, tmp_path)[0]["name"] == "notes.add"  # type: ignore[arg-type]
        assert len(seen) == 2


class TestEqualSchemasAreShared:
    """Equal input schemas, and equal field schemas inside different ones, are one dict."""

    def test_read_or_derived(self, tmp_path: Path) -> None:
        for _ in range(2):  # derived, then read back from the folder
            first, second = announced_tools(notes().capabilities, announced_tool, tmp_path)
            assert first["inputSchema"] is second["inputSchema"]

    def test_equal_annotations(self, tmp_path: Path) -> None:
        domain = Domain("notes")
        for action in ("get", "list"):
            domain.add(action, note_add, tier="core", read_only=True)
        for _ in range(2):  # derived, then read back from the folder
            first, second = announced_tools(domain.capabilities, announced_tool, tmp_path)
            assert first["annotations"] == {"readOnlyHint": True} and first["annotations"] is second["annotations"]

    def test_field_schemas_of_different_models(self) -> None:
        class Other(Input):
            text: str
            count: int = 2

        def other(ctx: CallContext, args: Other) -> dict:
            """Count a note."""
            return {}

        domain = notes()
        domain.add("count", other, input_model=Other, tier="core")
        tools = announced_tools(domain.capabilities, announced_tool, None)
        assert tools[0]["inputSchema"] is not tools[2]["inputSchema"]
        assert tools[0]["inputSchema"]["properties"]["text"] is tools[2]["inputSchema"]["properties"]["text"]
        assert tools[2] == announced_tool(domain.capabilities[2])


def test_capabilities_that_share_an_input_model_share_its_parsed_model() -> None:
    first, second = notes().capabilities
    assert first.parsed_model is second.parsed_model
    assert {"auth_token", "conversation_id"} <= set(first.parsed_model.model_fields)


def test_the_steady_collector_freezes_tunes_and_restores() -> None:
    before = gc.get_threshold()
    metrics = Metrics()
    with steady_collector(metrics):
        assert gc.get_threshold() == THRESHOLDS and gc.get_freeze_count() > 0
        gc.collect(0)
    gc.unfreeze()
    assert gc.get_threshold() == before
    assert b'facade_gc_pause_seconds_count{generation="0"}' in metrics.render()


def test_the_steady_collector_turns_on_a_collector_start_up_kept_off() -> None:
    """`facade serve` starts with the collector off; serving turns it on, once frozen."""
    with collector_paused():
        with steady_collector(Metrics()):
            assert gc.isenabled() and gc.get_freeze_count() > 0
        gc.unfreeze()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_one_shot_command_pauses_the_collector_and_freezes_what_it_built() -> None:
    assert gc.isenabled()
    with collector_paused(freeze=True):
        assert not gc.isenabled()
        built = [[i] for i in range(1000)]
    try:
        assert gc.isenabled() and gc.get_freeze_count() >= len(built)
    finally:
        gc.unfreeze()


def test_a_server_s_pause_leaves_freezing_to_the_serving_lifecycle_and_nests() -> None:
    frozen = gc.get_freeze_count()
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled()  # the inner block leaves it to the outer one
    assert gc.isenabled() and gc.get_freeze_count() == frozen

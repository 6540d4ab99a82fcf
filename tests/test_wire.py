"""The wire form of a listing (facade/catalogue/wire.py) is byte for byte what the SDK's own
serialization of the same tools makes, in every protocol era: a client can never tell them apart,
and the size and hash in the trace describe what it received."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import orjson
import pytest
from mcp_types import methods as wire_methods

from facade.catalogue.discovery import discover
from facade.catalogue.disclosure import DEFERRED_META_KEY
from facade.catalogue.served import ServedCatalogues
from facade.catalogue.wire import stored_tool, tools_array

REGISTRY = discover()
TOOLS = list(ServedCatalogues(REGISTRY).serve(REGISTRY).tools)
ERAS = sorted({era for method, era in wire_methods.SERVER_RESULTS if method == "tools/list"})


def sdk_array(tools: list[dict[str, Any]], era: str) -> bytes:
    """What the SDK puts on the wire: its `Tool` model, its per-era surface dump, compact JSON."""
    result = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    try:
        dumped = wire_methods.serialize_server_result("tools/list", era, dumped)
    except (KeyError, ValueError):  # an era the SDK has no surface for: its model dump
        pass
    return json.dumps(dumped["tools"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class TestSameBytesAsTheSdk:
    """Every demo tool, in every era the SDK serves, plus one it does not know."""

    def test_there_are_both_eras(self) -> None:
        assert types.LATEST_PROTOCOL_VERSION in ERAS and "2025-11-25" in ERAS
        assert len(TOOLS) >= 400

    @pytest.mark.parametrize("era", [*ERAS, "1999-01-01"])
    def test_every_demo_tool(self, era: str) -> None:
        for tool in TOOLS:
            assert tools_array([tool], era) == sdk_array([tool], era), tool["name"]

    @pytest.mark.parametrize("era", ERAS)
    def test_the_whole_array(self, era: str) -> None:
        assert tools_array(TOOLS, era) == sdk_array(TOOLS, era)

    @pytest.mark.parametrize("era", ERAS)
    def test_deferred_marks_and_unusual_keys(self, era: str) -> None:
        """`_meta` beside a deferred mark, a title, a `$schema`, extra and null keys, non-ASCII text."""
        tool = {
            "name": "x.y", "title": "Ünïcode — “quoted”", "description": "a\nb\t\"c\" \u2028",
            "inputSchema": {"required": ["a"], "type": "object", "$schema": "s", "properties": {"a": {"type": "number", "default": 1.5}}, "x": None},
            "annotations": {"readOnlyHint": True, "destructiveHint": None},
            "_meta": {"facade/approval": 2, DEFERRED_META_KEY: True},
            "outputSchema": None,
        }
        assert tools_array([stored_tool(tool)], era) == sdk_array([tool], era)

    @pytest.mark.parametrize("era", [*ERAS, "1999-01-01"])
    def test_schemas_that_many_tools_share(self, era: str) -> None:
        """The catalogue keeps equal schemas as one dict, which an older era's array shapes and
        writes once (`tools_array`): every tool still gets its own in its place, a dict serving as
        one tool's input schema and another's output schema is right in both, and the tools the
        array was made from are left as they were."""
        schema = next(t["inputSchema"] for t in TOOLS if t["inputSchema"].get("properties"))
        shared = [{**t, "inputSchema": schema} for t in TOOLS[:40]]
        shared += [{**t, "outputSchema": schema} for t in TOOLS[40:60]]  # the same object, another key
        shared = [{key: tool[key] for key in stored_tool(tool)} for tool in shared]  # as stored: in its order
        shared += TOOLS[60:80]  # schemas of their own, beside the shared one
        assert all(orjson.dumps(stored_tool(t)) == orjson.dumps(t) for t in shared)  # as the catalogue stores them
        before = orjson.dumps(shared)
        assert tools_array(shared, era) == sdk_array(shared, era)
        assert orjson.dumps(shared) == before and all(s["inputSchema"] is schema for s in shared[:40])

    def test_the_catalogue_stores_tools_in_the_latest_eras_order(self) -> None:
        """What lets a latest-era listing be encoded as it is, with no reshaping."""
        assert all(orjson.dumps(stored_tool(t)) == orjson.dumps(t) for t in TOOLS)
        deferred = [t for t in ServedCatalogues(REGISTRY).serve(REGISTRY, frozenset(c.name for c in REGISTRY)).tools]
        assert all(t["_meta"][DEFERRED_META_KEY] for t in deferred)
        assert all(orjson.dumps(stored_tool(t)) == orjson.dumps(t) for t in deferred)
        assert tools_array(deferred) == sdk_array(deferred, types.LATEST_PROTOCOL_VERSION)

    def test_the_eras_differ_in_order_only(self) -> None:
        """A guard on the test itself: the eras really order keys differently."""
        arrays = {tools_array(TOOLS, era) for era in ERAS}
        assert len(arrays) > 1
        assert len({len(a) for a in arrays}) == 1

"""The wire form of a tools array, per protocol era: the one place a listing becomes bytes.

The SDK's own path (validate every tool into its `Tool` model, dump it, validate and dump it
again against the era's surface, then `json.dumps`) took ~260 ms of CPU for the first listing
of 10,449 tools (measured 2026-12-03), once per view and era. The announced tools are already
plain JSON, so all that path changes is the order of keys and which keys an era keeps: this
module reads both from the SDK's surface models (so an SDK upgrade is followed, not copied)
and encodes with orjson. tests/test_wire.py holds the bytes equal to the SDK's, per era.

The catalogue stores every announced tool already in the latest era's order (`stored_tool`), so
a latest-era listing is encoded as it is and only the older eras reorder: only the values whose
order differs there (the schemas), each distinct one once.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import orjson
from mcp_types import methods as wire_methods
from pydantic import BaseModel

Tool = dict[str, Any]
STORED_ERA = types.LATEST_PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class _Shape:
    """The key order of one model on the wire; `nested` names the keys holding a model."""

    order: tuple[str, ...]
    keeps_extra: bool
    nested: Mapping[str, _Shape]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):  # `X | None`
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


def _shape_of(model: type[BaseModel]) -> _Shape:
    order, nested = [], {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        order.append(key)
        inner = _model_of(info.annotation)
        if inner is not None and inner.model_fields:  # a model with no fields (`_meta`) keeps its dict
            nested[key] = _shape_of(inner)
    return _Shape(tuple(order), model.model_config.get("extra") == "allow", nested)


@functools.cache
def _tool_shape(era: str) -> _Shape:
    try:
        result = wire_methods.SERVER_RESULTS[("tools/list", era)]
    except KeyError:  # an era the SDK has no surface for: its plain `Tool` model
        return _shape_of(types.Tool)
    model = _model_of(typing.get_args(result.model_fields["tools"].annotation)[0])
    assert model is not None, f"the SDK's tools/list result for {era} lists no model"
    return _shape_of(model)


def _shaped(value: Mapping[str, Any], shape: _Shape) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in shape.order:
        item = value.get(key)
        if item is not None:  # the SDK dumps with exclude_none
            inner = shape.nested.get(key)
            out[key] = _shaped(item, inner) if inner is not None and isinstance(item, Mapping) else item
    if shape.keeps_extra and len(out) < len(value):
        out.update((k, v) for k, v in value.items() if k not in out and v is not None)
    return out


def stored_tool(tool: Mapping[str, Any]) -> Tool:
    """`tool` as the catalogue keeps it: shaped for the latest era."""
    return _shaped(tool, _tool_shape(STORED_ERA))


def tools_array(tools: Sequence[Tool], era: str = STORED_ERA) -> bytes:
    """The `tools` array of a `tools/list` result in `era`, encoded, from tools as the catalogue
    stores them (`stored_tool`)."""
    if era == STORED_ERA:
        return orjson.dumps(tools)
    changed = _changed_values(era)
    if changed is None:
        shape = _tool_shape(era)
        return orjson.dumps([_shaped(t, shape) for t in tools])
    # Only the schemas change, and the catalogue keeps equal schemas as one dict
    # (facade/catalogue/announced.py): each is shaped once per array, and encoded once when tools
    # share it; the rest of every tool is written as it is. At 10,449 tools with 381 distinct
    # schemas, shaping every tool whole and encoding the result took 18-35 ms in process, this
    # 5-17; with every schema its own, 19.5-58 and 14-54 (2026-12-07, two processes each).
    out = list(tools)
    for key, shape in changed:
        done: dict[int, dict[str, Any] | orjson.Fragment] = {}  # by id: `tools` holds each value while this runs
        for i, tool in enumerate(out):
            value = tool.get(key)
            if value is None or (type(value) is not dict and not isinstance(value, Mapping)):
                continue
            shaped = done.get(id(value))
            if shaped is None:  # its first tool: shaped, and encoded with the array
                shaped = done[id(value)] = _shaped(value, shape)
            elif type(shaped) is dict:  # shared: encoded once, and that written in each tool's place
                shaped = done[id(value)] = orjson.Fragment(orjson.dumps(shaped))
            if tool is tools[i]:  # copied once, whichever of its values change
                tool = out[i] = dict(tool)
            tool[key] = shaped
    return orjson.dumps(out)


@functools.cache
def _changed_values(era: str) -> tuple[tuple[str, _Shape], ...] | None:
    """Where a stored tool differs in `era`: the keys whose values `era` shapes otherwise, with
    its shape for each, when the tool's own keys keep their order there (so the rest of it is
    written as it is); None when they do not, and every tool is shaped whole."""
    stored, target = _tool_shape(STORED_ERA), _tool_shape(era)
    if not _keeps_order(stored, target):
        return None
    return tuple(
        (key, shape) for key, shape in target.nested.items()
        if key in stored.order and not _unchanged(stored.nested.get(key), shape)
    )


def _keeps_order(stored: _Shape, target: _Shape) -> bool:
    """Whether a value shaped by `stored` keeps its keys, in its order, when shaped by `target`:
    `stored` allows no key it does not order (so a stored value has no other), and `target`
    orders each of them, in the same order. (A stored value holds no null: `_shaped` drops them.)"""
    if stored.keeps_extra:
        return False
    where = {key: i for i, key in enumerate(target.order)}
    places = [where.get(key) for key in stored.order]
    return None not in places and places == sorted(places)  # type: ignore[type-var]


def _unchanged(stored: _Shape | None, target: _Shape) -> bool:
    """Whether a value shaped by `stored` (None: kept as it came) is its own shape under `target`."""
    return (
        stored is not None
        and _keeps_order(stored, target)
        and all(_unchanged(stored.nested.get(key), shape) for key, shape in target.nested.items() if key in stored.order)
    )

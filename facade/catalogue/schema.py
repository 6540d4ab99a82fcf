"""The announced schema: what `tools/list` sends for a capability, its parsed model's schema.

One function, so that the catalogue, the budget and the benchmark all measure the same bytes.
The parsed model keeps validating everything; this only drops what changes nothing for the
model: the identity fields (the host-side hook fills them), `$schema`, `title`s, null defaults,
null-unions on optional fields, `additionalProperties: false` (the server refuses extras anyway)
and `$defs` when inlining them is smaller.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from pydantic import BaseModel

from facade.catalogue.wire import stored_tool
from facade.kit.capability import IDENTITY_FIELDS, Capability, parsed_model_for

_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains", "propertyNames")
_DROPPED = ("title", "$schema")
APPROVAL_META_KEY = "facade/approval"


def compact_json(value: Any) -> str:
    """JSON as sent on the wire: no spaces after `,` and `:` (the spaces alone cost ~24% tokens).
    orjson writes it in 0.2 us where the standard encoder took 3.5 (a record's result, every
    tools/call's text, 2026-12-05); what orjson refuses (an integer past 64 bits, a key that is
    not a string, a lone surrogate) goes through the standard encoder, as before."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def announced_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The input schema a model is shown for a capability whose input model, or parsed model, is
    `model`: the same either way, since the parsed model only adds the identity fields, which
    are dropped, and refuses extras, which is not shown (a `json_schema_extra` function that
    reads the class's fields would see the identity fields only in the parsed model). From the
    input model no parsed model is made: 0.28 -> 0.21 s of CPU at 449 capabilities when a fresh
    data folder derives them all (2026-12-07); the input model's validator is built instead of
    the parsed model's, and a called tool builds its parsed model's on its first call, as on a
    warm start. `tests/test_schema.py` holds the two equal for every bundled capability."""
    schema = model.model_json_schema()
    if "$ref" in schema:
        # A model that refers to itself is all under $defs, its top level a reference; its
        # parsed model, a subclass, has a top level of its own.
        schema = parsed_model_for(model).model_json_schema()
    schema.pop("additionalProperties", None)  # the parsed model refuses extras whatever the input model says
    # A model's docstring becomes its schema's description: prose about the arguments as a
    # whole, which the tool's own description already says (measured 2026-11-30: the kit's
    # Page docstring alone stood in 7 catalogue schemas). Field descriptions stay.
    schema.pop("description", None)
    for definition in schema.get("$defs", {}).values():
        definition.pop("description", None)
    props = schema.get("properties", {})
    for name in IDENTITY_FIELDS:
        props.pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r not in IDENTITY_FIELDS]
    schema = _strip(schema)
    schema = _inline_defs_if_smaller(schema)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    if not schema.get("required"):
        schema.pop("required", None)
    return schema


def announced_tool(capability: Capability) -> dict[str, Any]:
    """The whole `tools/list` entry of a capability, as a JSON-ready dict in the order the
    catalogue stores it (facade/catalogue/wire.py)."""
    tool: dict[str, Any] = {
        "name": capability.tool_name,
        "description": capability.description,
        "inputSchema": announced_schema(capability.input_model),
    }
    hints = annotation_hints(capability)
    if hints:
        tool["annotations"] = hints
    if capability.approval:
        # Hosts read this to ask their user (1) or to expect a held card (2); the few tools
        # that need it carry it, the rest pay nothing.
        tool["_meta"] = {APPROVAL_META_KEY: capability.approval}
    return stored_tool(tool)


def annotation_hints(capability: Capability) -> dict[str, bool]:
    """Only `readOnlyHint` for the reads. Every other tool is left to the MCP defaults (may
    change state, may be destructive), the cautious reading for a host's consent prompt;
    spelling out `destructiveHint: false` and `idempotentHint` on every write cost ~7% of the
    catalogue's bytes (measured 2026-11-30) for hints no model reads."""
    return {"readOnlyHint": True} if capability.annotations.read_only else {}


def says_nothing(key: str, value: Any) -> bool:
    """A keyword whose value tells the model nothing it would not assume: a default that is the
    natural meaning of leaving the field out (None, "", False, 0, empty), a non-empty or
    non-negative bound, a sanity cap far above any real value. The parsed model still enforces
    every one of them and its error says the limit; the model reads them on every turn.
    (Measured 2026-11-30 on projects+files: bounds and empty defaults were 13% of the bytes.)"""
    if key == "default":
        return value in (None, "", False, 0, [], {}) and value is not True
    if key in ("minLength", "minItems"):
        return value <= 1
    if key in ("maxLength", "maxItems"):
        return value >= 100
    if key == "minimum":
        return value in (0, 1)
    if key == "maximum":
        return value >= 1000
    return False


def _strip(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "additionalProperties" and value is False:
            continue
        if not isinstance(value, dict | list) and says_nothing(key, value):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _strip(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_strip(sub) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = _strip(value)
        else:
            out[key] = value
    return _drop_null_union(out)


def _drop_null_union(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, {type: null}]` → X: an optional field is simply left out, never sent as null."""
    options = node.get("anyOf")
    if not isinstance(options, list):
        return node
    rest = [o for o in options if o != {"type": "null"}]
    if len(rest) == len(options):
        return node
    merged = {k: v for k, v in node.items() if k != "anyOf"}
    if len(rest) == 1:
        return {**rest[0], **merged}
    return {**merged, "anyOf": rest}


def _inline_defs_if_smaller(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.get("$defs")
    if not defs:
        return schema
    try:
        inlined = _resolve_refs({k: v for k, v in schema.items() if k != "$defs"}, defs, ())
    except _Recursive:
        return schema
    return inlined if len(compact_json(inlined)) <= len(compact_json(schema)) else schema


class _Recursive(Exception):
    """A `$ref` refers to itself: it cannot be inlined."""


def _resolve_refs(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_resolve_refs(item, defs, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in stack or name not in defs:
            raise _Recursive(name)
        target = _resolve_refs(defs[name], defs, (*stack, name))
        extra = {k: v for k, v in node.items() if k != "$ref"}
        return {**target, **extra}
    return {k: _resolve_refs(v, defs, stack) for k, v in node.items()}

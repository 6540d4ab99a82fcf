"""Arguments generated for a capability from its announced inputSchema: values the schema
admits, deliberately wrong ones, and the extremes that reach past validation into a database
(ids past a column's width, NUL bytes, empty and very long text). The hostile walk over HTTP
(tests/test_hostile.py) and the in-process walk on both databases (tests/test_input_errors.py)
draw from here."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from facade.catalogue.schema import announced_schema

TRAVERSALS = [
    "../canary.txt",
    "../../canary.txt",
    "../../../../../../etc/passwd",
    "/etc/passwd",
    "{canary}",
    "notes/../../canary.txt",
    "..\\..\\canary.txt",
    "%2e%2e/%2e%2e/canary.txt",
    "notes/\x00/../../canary.txt",
    "./../canary.txt",
    "~/canary.txt",
    "file:///etc/passwd",
]
SQL = [
    "'; DROP TABLE finance_accounts; --",
    "' OR '1'='1",
    '" OR ""="',
    "%' OR 1=1 --",
    "%_%",
    "\\",
    "1; SELECT pg_sleep(30)",
    "') UNION SELECT name, sql FROM sqlite_master --",
    "*",
    "NOT (",
    '"unbalanced',
]
HOSTILE_STRINGS = [*SQL, *TRAVERSALS[:4], "\x00", "\u202e\ufeff", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "a" * 5000, "", " ", "\r\nX-Injected: 1"]

# Integers at and past the widths of PostgreSQL's integer and bigint and SQLite's INTEGER, and
# 1e20 as a model writes it (a JSON float that pydantic takes as an integer).
EXTREME_INTS: list[Any] = [2**31 - 1, 2**31, -(2**31) - 1, 2**63, -(2**63) - 1, 1e20]
# A NUL byte (PostgreSQL text cannot hold one), empty text and text far past any column.
EXTREME_STRINGS = ["a\x00b", "", "x" * 20_000]


LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(HOSTILE_STRINGS),
)
ANY_JSON = st.recursive(LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


def from_schema(node: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the schema admits (mostly: bounds and formats are followed, patterns too)."""
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "anyOf" in node:
        return st.one_of([from_schema(sub) for sub in node["anyOf"]])
    kind = node.get("type")
    if kind == "string":
        fmt = node.get("format")
        if fmt == "date":
            return st.dates().map(lambda d: d.isoformat())
        if fmt == "date-time":
            return st.datetimes().map(lambda d: d.isoformat() + "Z")
        if fmt == "time":
            return st.times().map(lambda t: t.isoformat())
        low, high = node.get("minLength", 0), min(node.get("maxLength", 40), 40)
        if "pattern" in node:
            return st.from_regex(node["pattern"], fullmatch=True).filter(lambda s: low <= len(s) <= node.get("maxLength", 10**6))
        return st.text(min_size=low, max_size=max(low, high)) | st.sampled_from(HOSTILE_STRINGS)
    if kind == "integer":
        low = node.get("minimum", node["exclusiveMinimum"] + 1 if "exclusiveMinimum" in node else -(2**40))
        return st.integers(min_value=low, max_value=node.get("maximum", 2**40)) | st.sampled_from([0, 1, 2, 3, *EXTREME_INTS])
    if kind == "number":
        return st.floats(min_value=node.get("minimum"), max_value=node.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_schema(node.get("items", {})), min_size=node.get("minItems", 0), max_size=max(node.get("minItems", 0), 3))
    if kind == "object" or "properties" in node:
        props = node.get("properties", {})
        if not props:
            return st.dictionaries(st.text(max_size=10), LEAF, max_size=3)
        required = set(node.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v) for k, v in props.items() if k in required},
            optional={k: from_schema(v) for k, v in props.items() if k not in required},
        )
    return ANY_JSON


def wrong(schema: dict[str, Any], example: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Deliberately wrong arguments: a parameter of the wrong type, a required one missing, an
    unknown one, or not an object at all."""
    props = sorted(schema.get("properties", {}))
    base = st.just(dict(example))
    options = [
        ANY_JSON.filter(lambda v: not isinstance(v, dict)),
        base.flatmap(lambda e: st.dictionaries(st.text(min_size=1, max_size=10), ANY_JSON, max_size=2).map(lambda x: {**e, **x})),
    ]
    if props:
        options.append(st.tuples(base, st.sampled_from(props), ANY_JSON).map(lambda t: {**t[0], t[1]: t[2]}))
        options.append(st.tuples(base, st.sampled_from(props)).map(lambda t: {k: v for k, v in t[0].items() if k != t[1]}))
    return st.one_of(options)


def mutated_example(schema: dict[str, Any], example: dict[str, Any]) -> st.SearchStrategy[Any]:
    """The tool's working example with one parameter regenerated: reaches past validation."""
    props = schema.get("properties", {})
    if not props:
        return st.just(dict(example))
    return st.sampled_from(sorted(props)).flatmap(lambda k: from_schema(props[k]).map(lambda v: {**example, k: v}))


def cases_for(capability: Any, count: int) -> list[Any]:
    """`count` generated arguments for the capability, the same ones every run."""
    schema = announced_schema(capability.parsed_model)
    example = capability.example or {}
    strategy = st.one_of(from_schema(schema), wrong(schema, example), mutated_example(schema, example))
    found: list[Any] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=True,  # the same cases every run: a failure here reproduces
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(arguments: Any) -> None:
        found.append(arguments)

    collect()
    return found


def extreme_cases(schema: dict[str, Any], example: dict[str, Any]) -> list[dict[str, Any]]:
    """The working example with one value at a time replaced by each extreme of its kind: every
    integer and string in the example (nested ones too), and every integer or string parameter
    the example leaves out. Each case differs from arguments that succeed in that value alone,
    so it reaches as far into the handler and the database as that value can go."""
    cases: list[dict[str, Any]] = []

    def walk(value: Any, put: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int | float):
            cases.extend(put(v) for v in EXTREME_INTS)
        elif isinstance(value, str):
            cases.extend(put(v) for v in EXTREME_STRINGS)
        elif isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, lambda v, key=key, value=value, put=put: put({**value, key: v}))
        elif isinstance(value, list):
            for n, inner in enumerate(value):
                walk(inner, lambda v, n=n, value=value, put=put: put([*value[:n], v, *value[n + 1 :]]))

    walk(example, lambda v: v)
    for name, node in schema.get("properties", {}).items():
        if name in example:
            continue
        kinds = {node.get("type"), *(sub.get("type") for sub in node.get("anyOf", []))}
        items = {node.get("items", {}).get("type"), *(sub.get("items", {}).get("type") for sub in node.get("anyOf", []))}
        if "integer" in kinds or "number" in kinds:
            cases.extend({**example, name: v} for v in EXTREME_INTS)
        if "string" in kinds:
            cases.extend({**example, name: v} for v in EXTREME_STRINGS)
        if "array" in kinds and items & {"integer", "number"}:
            cases.extend({**example, name: [v]} for v in EXTREME_INTS)
        if "array" in kinds and "string" in items:
            cases.extend({**example, name: [v]} for v in EXTREME_STRINGS)
    return cases

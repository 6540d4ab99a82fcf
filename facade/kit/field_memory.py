"""What an input model's fields keep in memory, made smaller without losing anything.

pydantic (2.14) gives every `FieldInfo` a qualifier set of its own (`Final`, `ClassVar`,
`Required`…) that is almost always empty, and keeps two `FieldInfo`s per declared field: the
merged one and the plugin's own `Field(...)`. An empty `set()` is 216 bytes, so a catalogue of
10,000 capabilities spent ~1.9 KiB per capability on nothing (tracemalloc, 2026-12-06: the
synthetic plugin's models went 14.1 -> 12.2 KiB each with this). pydantic fills the set while it
inspects an annotation and after that only reads it (`in`, and `.copy()` when a subclass copies
the field), so one shared empty `frozenset` serves every field whose set is empty. A set that
holds something, or an attribute of any other type, is left as pydantic made it: if pydantic
changes how it keeps qualifiers, this is a no-op, and tests/test_field_memory.py says so.
A field that pydantic makes again later (a forward reference resolved by `model_rebuild`) gets
a set of its own again; that is rare in input models and left so, because wrapping
`model_rebuild` would move the caller's frame that pydantic reads the namespace from.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

_NO_QUALIFIERS: frozenset[str] = frozenset()


def share_empty_qualifiers(model: type[BaseModel]) -> None:
    """Point each of `model`'s fields with no qualifiers, and the `Field(...)` each was declared
    with, at the one shared empty set."""
    for field in model.__pydantic_fields__.values():
        _share(field)
        _share(getattr(field, "_original_assignment", None))


def _share(info: Any) -> None:
    if isinstance(info, FieldInfo):
        qualifiers = getattr(info, "_qualifiers", None)
        if type(qualifiers) is set and not qualifiers:
            info._qualifiers = _NO_QUALIFIERS  # type: ignore[assignment]

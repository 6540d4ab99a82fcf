"""What no argument may carry, whichever capability it is for: text with a NUL byte, which no
PostgreSQL text column (nor most file APIs) can hold, and an integer wider than 64 bits, which
neither database can bind. Refused with the call's other argument errors, naming the field, so a
model is told what to change — not, as before, that the database is away (2026-12-02)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from facade.kit.db import BIGINT_MAX, BIGINT_MIN


def check_storable(args: BaseModel) -> None:
    """Raises a ValidationError listing every value of the parsed arguments no database holds."""
    problems: list[InitErrorDetails] = [
        {"type": PydanticCustomError("unstorable", message), "loc": loc, "input": value}
        for loc, value, message in _unstorable(args.model_dump(by_alias=True), ())
    ]
    if problems:
        raise ValidationError.from_exception_data(type(args).__name__, problems)


def _unstorable(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any, str]]:
    if isinstance(value, str):
        if "\x00" in value:
            yield loc, value, "contains a NUL byte (\\u0000), which no text field can hold; remove it"
    elif isinstance(value, int) and not isinstance(value, bool):
        if not BIGINT_MIN <= value <= BIGINT_MAX:
            yield loc, value, f"integers are between {BIGINT_MIN} and {BIGINT_MAX} (64 bits); send one in that range"
    elif isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str) and "\x00" in key:
                yield loc, key, f"the key {key!r} contains a NUL byte (\\u0000); remove it"
            yield from _unstorable(inner, (*loc, key))
    elif isinstance(value, list | tuple | set | frozenset):
        for n, inner in enumerate(value):
            yield from _unstorable(inner, (*loc, n))

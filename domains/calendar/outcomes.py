"""Per-item results of operations over many things: each item succeeds or fails on its own and
is reported, so that one bad item does not sink the rest; a failed item changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError

from facade.kit import DomainError

Result = dict[str, Any]


def each(keys: Iterable[Any], key_name: str, act: Callable[[Any], Result]) -> Result:
    """Run `act` once per key (duplicates once) and report each outcome."""
    results: list[Result] = []
    for key in dict.fromkeys(keys):
        try:
            results.append({key_name: key, "ok": True, **act(key)})
        except DomainError as exc:
            results.append({key_name: key, "ok": False, "error": str(exc)})
        except ValidationError as exc:  # an imported item whose values do not fit the fields
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "value"
            results.append({key_name: key, "ok": False, "error": f"invalid request: {where}: {first['msg']}"})
    succeeded = sum(1 for r in results if r["ok"])
    return {"results": results, "succeeded": succeeded, "failed": len(results) - succeeded}

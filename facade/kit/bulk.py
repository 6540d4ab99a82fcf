"""Operations over many things at once: each item succeeds or fails on its own and is reported,
so that one bad item does not sink the rest.

A failed item must change nothing, so an item's work runs every check before it touches
anything; what concerns the whole call (the one target every item moves to) is checked before
the loop, and a failure there refuses the call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from facade.errors import DomainError, TimedOut
from facade.kit import deadline, progress

K = TypeVar("K")
Result = dict[str, Any]


def each(
    items: Iterable[K],
    key_name: str,
    act: Callable[[K], Result],
    *,
    key: Callable[[K], Any] | None = None,
    distinct: bool = True,
) -> Result:
    """Run `act` once per item and report each outcome, in order: `{key_name: key, "ok": true,
    **act(item)}`, or `{key_name: key, "ok": false, "error": message}` when it raises a domain
    error; then how many succeeded and failed.

    The key is the item itself unless `key` derives it (a service's name from its definition).
    With `distinct`, an item given twice runs once; without, each occurrence runs and is
    reported (a code listed twice is created once and refused once). A client that asked for
    progress hears after each item how many of the total are done.
    """
    results: list[Result] = []
    stopped: TimedOut | None = None
    todo = list(dict.fromkeys(items) if distinct else items)
    for item in progress.counted(todo, f"{key_name}s"):
        shown = item if key is None else key(item)
        if stopped is None:
            try:
                deadline.check()
            except TimedOut as exc:
                stopped = exc
        if stopped is not None:
            # Past the call's time limit the rest is reported, not run: what was done stays done.
            results.append({key_name: shown, "ok": False, "error": f"not attempted: {stopped}"})
            continue
        try:
            results.append({key_name: shown, "ok": True, **act(item)})
        except DomainError as exc:
            results.append({key_name: shown, "ok": False, "error": str(exc)})
    succeeded = sum(1 for r in results if r["ok"])
    return {"results": results, "succeeded": succeeded, "failed": len(results) - succeeded}

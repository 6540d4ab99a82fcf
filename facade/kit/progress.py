"""Progress of a long call: a capability says how far it got, and the client that asked for
progress (MCP `_meta.progressToken`) is told as it happens.

The reporter belongs to the call, not to a handler's signature: the transport puts it in a
context variable around the call, and the worker thread a sync handler runs in inherits it, so
`CallContext.progress` and `facade.kit.each` (every bulk operation) reach it without being
handed anything. With no reporter (no token, a card's run, a test) reporting does nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import TypeVar

from facade.kit.scoped import scoped

T = TypeVar("T")

Reporter = Callable[[float, float | None, str | None], None]
"""`(done, total, message)`; must be safe to call from any thread and must not block."""

_current: ContextVar[Reporter | None] = ContextVar("facade_progress", default=None)


def report(done: float, total: float | None = None, message: str | None = None) -> None:
    """Tell the caller how far the call got (`done` of `total`, in any unit that only grows)."""
    reporter = _current.get()
    if reporter is not None:
        reporter(float(done), None if total is None else float(total), message)


def reporting(reporter: Reporter | None) -> scoped[Reporter | None]:
    """Route `report` to `reporter` for the calls made inside."""
    return scoped(_current, reporter)


def counted(items: Sequence[T], unit: str) -> Iterator[T]:
    """Iterate `items`, reporting after each how many of them are done ("3 of 40 files")."""
    total = len(items)
    for done, item in enumerate(items, start=1):
        yield item
        report(done, total, f"{done} of {total} {unit}")

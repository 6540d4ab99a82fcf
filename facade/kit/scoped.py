"""A context variable set for one block, then back to what it was: the deadline, the asker and
the progress reporter of a call (facade/kit/deadline.py, asking.py, progress.py).

A class, not a `contextlib.contextmanager`: a generator's frame, its wrapper object and the
wrapper's exception bookkeeping cost ~1 us each time, three times on every call's path
(2026-12-05, issue 17); this is a `set` on the way in and its `reset` on the way out.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Generic, TypeVar

T = TypeVar("T")


class scoped(Generic[T]):  # noqa: N801 - used as the function it replaces: `with scoped(var, value):`
    __slots__ = ("var", "value", "token")

    def __init__(self, var: ContextVar[T], value: T) -> None:
        self.var = var
        self.value = value

    def __enter__(self) -> None:
        self.token: Token[T] = self.var.set(self.value)

    def __exit__(self, *exc: object) -> None:
        self.var.reset(self.token)

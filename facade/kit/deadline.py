"""How long one call may run: a deadline the server sets per call, and the check that the
loops of long handlers make at their safe points.

A worker thread cannot be stopped from outside, and a thread spinning in Python still takes
its share of the interpreter from every other agent (issue 13: one `files.grep` held the
server for 8.7 s). So the work stops itself: every loop over an unbounded number of things
(files under a folder, items of a bulk call, folders of a rescan) calls `check()` once per
step, and a call past its deadline raises `TimedOut` there, before the next step touches
anything. The deadline is a context variable, so the worker thread running the handler sees
the one its call set (anyio copies the context into the thread).
"""

from __future__ import annotations

import time
from contextvars import ContextVar

from facade.errors import TimedOut
from facade.kit.scoped import scoped

# FACADE_CALL_DEADLINE_SECONDS's default. The slowest demo call measured is well under a
# second; a legitimate long call (a backup of a large folder) gets a minute before it stops.
DEFAULT_SECONDS = 60.0

# (when it passes on time.monotonic(), the limit in seconds as the message tells it)
_deadline: ContextVar[tuple[float, float] | None] = ContextVar("facade_call_deadline", default=None)


def limited(seconds: float) -> scoped[tuple[float, float] | None]:
    """Within this block, `check()` raises once `seconds` have passed."""
    return scoped(_deadline, (time.monotonic() + seconds, seconds))


def check() -> None:
    """Raise `TimedOut` when the current call is past its deadline; free outside a call."""
    current = _deadline.get()
    if current is not None and time.monotonic() > current[0]:
        raise TimedOut(
            f"the call ran past the server's limit of {current[1]:g} s for one call and stopped "
            "before its next step; narrow it (a smaller folder, fewer items, a name filter) and call again"
        )

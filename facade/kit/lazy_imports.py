"""One lazy import at a time: the format libraries a domain imports inside its handlers (so that
start-up does not pay for them) are first imported by worker threads, often two at once.

CPython 3.11 can fail such a race: two first calls to documents tools importing openpyxl
together raised "cannot access submodule 'parsers' of module 'xml' (most likely due to a circular
import)" inside defusedxml (tests/test_hostile.py, 2026-12-03, once the demo seed stopped
importing the office libraries at start). A handler's lazy imports run inside `importing()`."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

# Reentrant: a library imported under the lock may itself reach code that imports lazily.
_LOCK = threading.RLock()


@contextlib.contextmanager
def importing() -> Iterator[None]:
    """Hold the lazy-import lock for the imports in the block (cheap once they are loaded)."""
    with _LOCK:
        yield

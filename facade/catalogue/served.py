"""What `tools/list` serves for a view, computed once per view and protocol era: the announced
tools, their wire form, its size and its hash. The MCP layer, the trace, the gate and the
budget all read these, so every number describes the bytes actually served.

The wire form is the bytes of the SDK's per-era serialization of the result (it orders keys by
era), made by facade/catalogue/wire.py, so the hash in the trace is the hash of the array the
client received, not of a look-alike.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from mcp_types import LATEST_PROTOCOL_VERSION

from facade.catalogue.announced import announced_tools, fingerprint, probably_kept
from facade.catalogue.disclosure import DEFERRED_META_KEY
from facade.catalogue.registry import Registry
from facade.kit.capability import Capability
from facade.catalogue.schema import announced_tool
from facade.catalogue.wire import stored_tool, tools_array


class Wire:
    """The tools array exactly as one protocol era puts it on the wire: its compact JSON as the
    UTF-8 bytes `tools/list` answers with (shared read-only by every response of this view), with
    size and hash. The text and the parsed array (stdio answers with it; the budget reads it)
    are derived from the bytes on first use: kept for every view and era of a server that never
    asks for them, they were ~2 KiB per tool (measured 2026-12-02)."""

    __slots__ = ("encoded", "bytes", "sha256", "_tools")

    def __init__(self, encoded: bytes) -> None:
        self.encoded = encoded
        self.bytes = len(encoded)
        self.sha256 = hashlib.sha256(encoded).hexdigest()
        self._tools: list[dict[str, Any]] | None = None

    @property
    def json(self) -> str:
        return self.encoded.decode("utf-8")

    @property
    def tools(self) -> list[dict[str, Any]]:
        if self._tools is None:
            self._tools = orjson.loads(self.encoded)
        return self._tools


@dataclass(frozen=True)
class Served:
    """One view's catalogue as announced."""

    names: tuple[str, ...]
    tools: tuple[dict[str, Any], ...]
    _wires: dict[str, Wire] = field(default_factory=dict, repr=False, compare=False)

    def wire(self, era: str = LATEST_PROTOCOL_VERSION) -> Wire:
        cached = self._wires.get(era)
        if cached is None:
            cached = self._wires[era] = Wire(tools_array(self.tools, era))
        return cached

    @property
    def json(self) -> str:
        return self.wire().json

    @property
    def bytes(self) -> int:
        return self.wire().bytes

    @property
    def sha256(self) -> str:
        return self.wire().sha256


class ServedCatalogues:
    """Announced tools per capability and per view, cached: the registry does not change while
    a server runs, so neither do these. With a `cache` folder the announced tools are kept there
    between starts (facade/catalogue/announced.py).

    The announced tools are made on first use, or by `build()`: deriving them on a fresh data
    folder took 0.45 s of CPU of the 1.77 s `facade stdio` used before answering `initialize`,
    which needs none of them (measured 2026-12-04, scripts/bench_startup.py); `facade stdio`
    builds them after the greeting, `facade serve` before it listens."""

    def __init__(self, capabilities: Iterable[Capability], cache: Path | None = None) -> None:
        self._capabilities = list(capabilities)
        self._cache = cache
        self._built: dict[str, dict[str, Any]] | None = None
        self._building = threading.Lock()
        self._views: dict[tuple[tuple[str, ...], frozenset[str]], Served] = {}
        # The same collection served again (the registry for every runtime listing, a view's
        # tools) is found by its identity, in O(1): rebuilding its names to find it was O(tools)
        # on every request. The collection is kept, so that its id is never reused.
        self._seen: dict[tuple[int, int, frozenset[str]], tuple[object, Served]] = {}
        self._lock = threading.Lock()
        self._key: str | None = None

    def needs_deriving(self) -> bool:
        """Whether `build()` would derive the announced tools: the data folder holds none for this
        code (a fresh folder, an upgrade). Without a folder nothing is kept: False."""
        return self._built is None and self._cache is not None and not probably_kept(self._cache, self._fingerprint())

    def _fingerprint(self) -> str:
        if self._key is None:  # ~10 ms at 449 capabilities (2026-12-07): once per process
            self._key = fingerprint(self._capabilities)
        return self._key

    def build(self) -> None:
        """Make the announced tools now (once; a concurrent caller waits for the same ones)."""
        self._tools  # noqa: B018 - the property builds them

    @property
    def _tools(self) -> dict[str, dict[str, Any]]:
        built = self._built
        if built is None:
            with self._building:
                built = self._built
                if built is None:
                    listed = self._capabilities
                    key = self._fingerprint() if self._cache is not None else None
                    tools = announced_tools(listed, announced_tool, self._cache, key)
                    built = dict(zip((c.name for c in listed), tools, strict=True))
                    # A capability with a wire name is also found by it (what `tools/call` carries).
                    built.update({t["name"]: t for t in list(built.values())})
                    self._built = built
        return built

    def tool(self, name: str) -> dict[str, Any]:
        return self._tools[name]

    def serve(self, capabilities: Iterable[Capability], deferred: frozenset[str] = frozenset()) -> Served:
        """The announced tools of `capabilities`, those named in `deferred` marked so in their
        `_meta` (facade/catalogue/disclosure.py). A registry or tuple served before is found by
        identity and length (neither changes while a server runs)."""
        stable = isinstance(capabilities, tuple | Registry)
        if stable:
            identity = (id(capabilities), len(capabilities), deferred)  # type: ignore[arg-type]
            seen = self._seen.get(identity)
            if seen is not None and seen[0] is capabilities:
                return seen[1]
        names = tuple(c.name for c in capabilities)
        key = (names, deferred)
        served = self._views.get(key)
        if served is None:
            served = Served(names, tuple(self._marked(n) if n in deferred else self._tools[n] for n in names))
            with self._lock:
                served = self._views.setdefault(key, served)
        if stable:
            with self._lock:
                self._seen[identity] = (capabilities, served)
        return served

    def _marked(self, name: str) -> dict[str, Any]:
        tool = self._tools[name]
        return stored_tool({**tool, "_meta": {**tool.get("_meta", {}), DEFERRED_META_KEY: True}})

"""What `tools/list` serves for a view, computed once per view and protocol era: the announced
tools, their wire form, its size and its hash. The MCP layer, the trace, the gate and the
budget all read these, so every number describes the bytes actually served.

The wire form is the SDK's own per-era serialization of the result (it orders keys by era), so
the hash in the trace is the hash of the array the client received, not of a look-alike.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp_types import LATEST_PROTOCOL_VERSION
from mcp_types import methods as wire_methods

from facade.catalogue.disclosure import DEFERRED_META_KEY
from facade.kit.capability import Capability
from facade.catalogue.schema import announced_tool, compact_json


@dataclass(frozen=True, slots=True)
class Wire:
    """The tools array exactly as one protocol era puts it on the wire: its serialized form and
    its compact JSON, as text and as the UTF-8 bytes `tools/list` answers with (both shared
    read-only by every response of this view), with size and hash."""

    tools: list[dict[str, Any]] = field(compare=False, repr=False)
    json: str
    encoded: bytes = field(compare=False, repr=False)
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Served:
    """One view's catalogue as announced."""

    names: tuple[str, ...]
    tools: tuple[dict[str, Any], ...]
    _wires: dict[str, Wire] = field(default_factory=dict, repr=False, compare=False)

    def wire(self, era: str = LATEST_PROTOCOL_VERSION) -> Wire:
        cached = self._wires.get(era)
        if cached is None:
            result = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in self.tools])
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            try:
                dumped = wire_methods.serialize_server_result("tools/list", era, dumped)
            except (KeyError, ValueError):  # an era the SDK has no surface for: its model dump
                pass
            text = compact_json(dumped["tools"])
            data = text.encode("utf-8")
            cached = Wire(dumped["tools"], text, data, len(data), hashlib.sha256(data).hexdigest())
            self._wires[era] = cached
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
    a server runs, so neither do these."""

    def __init__(self, capabilities: Iterable[Capability]) -> None:
        self._tools = {c.name: announced_tool(c) for c in capabilities}
        # A capability with a wire name is also found by it (what `tools/call` carries).
        self._tools.update({t["name"]: t for t in list(self._tools.values())})
        self._views: dict[tuple[tuple[str, ...], frozenset[str]], Served] = {}
        self._lock = threading.Lock()

    def tool(self, name: str) -> dict[str, Any]:
        return self._tools[name]

    def serve(self, capabilities: Iterable[Capability], deferred: frozenset[str] = frozenset()) -> Served:
        """The announced tools of `capabilities`, those named in `deferred` marked so in their
        `_meta` (facade/catalogue/disclosure.py)."""
        names = tuple(c.name for c in capabilities)
        key = (names, deferred)
        served = self._views.get(key)
        if served is None:
            served = Served(names, tuple(self._marked(n) if n in deferred else self._tools[n] for n in names))
            with self._lock:
                served = self._views.setdefault(key, served)
        return served

    def _marked(self, name: str) -> dict[str, Any]:
        tool = self._tools[name]
        return {**tool, "_meta": {**tool.get("_meta", {}), DEFERRED_META_KEY: True}}

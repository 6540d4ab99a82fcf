"""The announced tools of a registry, kept on disk between starts.

Deriving every capability's announced schema builds its parsed model's JSON schema: 0.2-0.4 s of
CPU at 449 capabilities, ~5 s at 10,449 (measured 2026-12-02), on every start, for the same bytes.
They are a pure function of the code, so they are kept in the data folder under a fingerprint of
the code that made them: the interpreter and pydantic versions, every capability's declaration,
and the size and modification time of the source file of every loaded module of the packages the
capabilities' models come from (`domains`, a plugin's), of the kit and of the schema rules. Any
edit, upgrade or new domain changes the fingerprint and the tools are derived again (what else
a process loaded does not count: `facade serve`, `stdio` and `check` share one file); a missing, unreadable or
foreign file is simply derived again too. The file is written whole and renamed into place, so
replicas started together on one data folder never read half of one.

Equal input schemas, and equal field schemas within them, are one shared dict: a catalogue
grows by tools shaped alike (10,449 tools held 46,368 field schemas, 378 of them distinct, and
381 distinct input schemas; measured 2026-12-03); so are equal `annotations` and `_meta` (one
`{"readOnlyHint": true}` for all the reads). Nothing changes an announced tool once built.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
import pydantic
import structlog

import facade
import facade.catalogue.schema  # noqa: F401 - its rules shape every tool: loaded, so fingerprinted
from facade.kit.capability import Capability

log = structlog.get_logger("facade.catalogue.announced")

CACHE_FILE = "announced-tools.json"
Tool = dict[str, Any]
# The entries of a tool that many tools hold equal: one dict each, and the file keeps each once.
WHOLE = ("annotations", "_meta")  # shared as they are; an input schema's fields are shared too
SHARED = ("inputSchema", *WHOLE)


def fingerprint(capabilities: Sequence[Capability]) -> str:
    """What the announced tools of `capabilities` depend on, as a sha256."""
    digest = hashlib.sha256(f"{sys.version}|{pydantic.VERSION}|{facade.__version__}".encode())
    for c in capabilities:
        model = c.input_model
        declared = (c.name, c.tool_name, c.description, int(c.approval), c.annotations.read_only, model.__module__, model.__qualname__)
        digest.update(repr(declared).encode())
    packages = {c.input_model.__module__.partition(".")[0] for c in capabilities} - {"facade"}
    # A model of the kit's is under facade.kit; the key order is the SDK's (facade/catalogue/wire.py).
    packages |= {"facade.kit", "facade.catalogue.schema", "facade.catalogue.wire", "mcp_types"}
    files = {
        f for name, m in list(sys.modules.items())
        if any(name == p or name.startswith(f"{p}.") for p in packages) and isinstance(f := getattr(m, "__file__", None), str)
    }
    for path in sorted(files):
        with contextlib.suppress(OSError):
            st = os.stat(path)
            digest.update(f"{path}|{st.st_size}|{st.st_mtime_ns}".encode())
    return digest.hexdigest()


def announced_tools(
    capabilities: Sequence[Capability], derive: Callable[[Capability], Tool], folder: Path | None, key: str | None = None
) -> list[Tool]:
    """`derive(c)` for each capability, in order; read from `folder` when it holds them for this
    very code, else derived and written there (when a folder is given). `key`: their
    `fingerprint`, when the caller has it already."""
    if folder is None:
        return shared_parts([derive(c) for c in capabilities])
    key = key or fingerprint(capabilities)
    path = folder / CACHE_FILE
    kept = _read(path, key, capabilities)
    if kept is not None:
        return shared_parts(kept)
    tools = shared_parts([derive(c) for c in capabilities])
    _write(path, key, tools, capabilities)
    return tools


def probably_kept(folder: Path, key: str) -> bool:
    """Whether `folder` holds the tools kept under `key`, by the first bytes of the file (it is
    written fingerprint first): a look that costs no read of the whole. A file that passes it and
    fails the full read (`announced_tools`) is derived again there."""
    head = b'{"fingerprint":' + orjson.dumps(key)
    try:
        with open(folder / CACHE_FILE, "rb") as kept:
            return kept.read(len(head)) == head
    except OSError:
        return False


def shared_parts(tools: list[Tool]) -> list[Tool]:
    """`tools`, each equal input schema, field schema, `annotations` and `_meta` one shared dict
    (in place)."""
    seen: dict[bytes, Any] = {}
    done: set[int] = set()  # schemas already shared (read from the file, they come shared)

    def one(value: Any) -> Any:
        return seen.setdefault(orjson.dumps(value), value)

    for tool in tools:
        for name in WHOLE:
            if isinstance(part := tool.get(name), dict):
                tool[name] = one(part)
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or id(schema) in done:
            continue
        props = schema.get("properties")
        if isinstance(props, dict):
            for name, field in props.items():
                props[name] = one(field)
        tool["inputSchema"] = shared = one(schema)
        done.add(id(shared))
    return tools


def _read(path: Path, key: str, capabilities: Sequence[Capability]) -> list[Tool] | None:
    """The tools kept in `path` for `key`. Each of a tool's `SHARED` entries is the index of its
    value in `parts`, and a name or description that is the capability's own is null: decoding
    each distinct part once, and no copy of a string the capability holds, leaves no copies to
    free, whose holes kept RSS (~2 KiB per tool at 10,449 for the schemas, 2026-12-03; the names,
    descriptions and annotations were another ~0.35 KiB, 2026-12-04)."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, ValueError):  # orjson.JSONDecodeError is a ValueError
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != key:
        return None
    tools, parts = data.get("tools"), data.get("parts")
    if not (isinstance(tools, list) and isinstance(parts, list) and len(tools) == len(capabilities)):
        return None
    for tool, capability in zip(tools, capabilities):
        if not (isinstance(tool, dict) and "inputSchema" in tool):
            return None
        for name in SHARED:
            at = tool.get(name)
            if at is None:
                continue
            if not (type(at) is int and 0 <= at < len(parts)):
                return None
            tool[name] = parts[at]
        # The fingerprint holds both, and an announced tool holds no null (`stored_tool`).
        if "name" in tool and tool["name"] is None:
            tool["name"] = capability.tool_name
        if "description" in tool and tool["description"] is None:
            tool["description"] = capability.description
    return tools


def _write(path: Path, key: str, tools: list[Tool], capabilities: Sequence[Capability]) -> None:
    """Writes `tools` (their parts shared) as `_read` reads them."""
    at: dict[int, int] = {}
    parts: list[Any] = []
    rows = []
    for tool, capability in zip(tools, capabilities, strict=True):
        row = dict(tool)
        for name in SHARED:
            part = tool.get(name)
            if part is not None:
                if id(part) not in at:
                    at[id(part)] = len(parts)
                    parts.append(part)
                row[name] = at[id(part)]
        if row.get("name") == capability.tool_name:
            row["name"] = None
        if row.get("description") == capability.description:
            row["description"] = None
        rows.append(row)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.", delete=False) as out:
            out.write(orjson.dumps({"fingerprint": key, "parts": parts, "tools": rows}))
        os.replace(out.name, path)
    except OSError as exc:  # a read-only data folder costs the next start its time, nothing else
        log.warning("announced.not_kept", path=str(path), error=str(exc))
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(out.name)

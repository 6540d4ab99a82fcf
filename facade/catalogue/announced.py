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
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pydantic
import structlog

import facade
import facade.catalogue.schema  # noqa: F401 - its rules shape every tool: loaded, so fingerprinted
from facade.kit.capability import Capability

log = structlog.get_logger("facade.catalogue.announced")

CACHE_FILE = "announced-tools.json"
Tool = dict[str, Any]


def fingerprint(capabilities: Sequence[Capability]) -> str:
    """What the announced tools of `capabilities` depend on, as a sha256."""
    digest = hashlib.sha256(f"{sys.version}|{pydantic.VERSION}|{facade.__version__}".encode())
    for c in capabilities:
        model = c.input_model
        declared = (c.name, c.tool_name, c.description, int(c.approval), c.annotations.read_only, model.__module__, model.__qualname__)
        digest.update(repr(declared).encode())
    packages = {c.input_model.__module__.partition(".")[0] for c in capabilities} - {"facade"}
    packages |= {"facade.kit", "facade.catalogue.schema"}  # a model of the kit's is under facade.kit
    files = {
        f for name, m in list(sys.modules.items())
        if any(name == p or name.startswith(f"{p}.") for p in packages) and isinstance(f := getattr(m, "__file__", None), str)
    }
    for path in sorted(files):
        with contextlib.suppress(OSError):
            st = os.stat(path)
            digest.update(f"{path}|{st.st_size}|{st.st_mtime_ns}".encode())
    return digest.hexdigest()


def announced_tools(capabilities: Sequence[Capability], derive: Callable[[Capability], Tool], folder: Path | None) -> list[Tool]:
    """`derive(c)` for each capability, in order; read from `folder` when it holds them for this
    very code, else derived and written there (when a folder is given)."""
    if folder is None:
        return [derive(c) for c in capabilities]
    key = fingerprint(capabilities)
    path = folder / CACHE_FILE
    kept = _read(path, key, len(capabilities))
    if kept is not None:
        return kept
    tools = [derive(c) for c in capabilities]
    _write(path, key, tools)
    return tools


def _read(path: Path, key: str, count: int) -> list[Tool] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != key or not isinstance(tools := data.get("tools"), list):
        return None
    return tools if len(tools) == count else None


def _write(path: Path, key: str, tools: list[Tool]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", delete=False, encoding="utf-8") as out:
            json.dump({"fingerprint": key, "tools": tools}, out, ensure_ascii=False, separators=(",", ":"))
        os.replace(out.name, path)
    except OSError as exc:  # a read-only data folder costs the next start its time, nothing else
        log.warning("announced.not_kept", path=str(path), error=str(exc))
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(out.name)

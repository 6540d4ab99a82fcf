"""The files domain's sandbox: the one folder it touches. Every capability turns a caller's path
into a real one through `resolve`, and the OS's errors into domain errors through `os_errors`."""

from __future__ import annotations

from pathlib import Path

from facade.kit import Sandbox

from domains.files.settings import settings

SANDBOX = Sandbox(
    # Callers see a tree of their own: "/" is its top, and messages never say where it lives.
    place="the sandbox",
    setting="FACADE_FILES_ROOT",
    locate=lambda: settings().root,
    example="notes/todo.txt",
    find="list its folder with files.list",
    free="free space with files.delete",
    slash_is_root=True,
)

# The operations this domain's modules call, by their short names.
root = SANDBOX.root
resolve = SANDBOX.resolve
display = SANDBOX.display
inside_root = SANDBOX.contains
os_errors = SANDBOX.os_errors
translate = SANDBOX.translate


def is_root(real: Path) -> bool:
    return real == root()

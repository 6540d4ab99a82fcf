"""Turning the parsers' exceptions into domain errors that say what to change.

A damaged or mislabelled office file is foreseeable bad input: it must reach the model as a
refusal naming the file, never as a parser's stack trace."""

from __future__ import annotations

from contextlib import AbstractContextManager

from facade.kit import InvalidRequest

from domains.documents.sandbox import SANDBOX


def parsing(path: str, kind: str) -> AbstractContextManager[None]:
    """Refuse, inside the block, a file the `kind` parser cannot read."""
    return SANDBOX.parsing(
        path,
        lambda detail: InvalidRequest(
            f"{path} is not a readable .{kind} file ({detail}); check it is not damaged or pick another file"
        ),
    )

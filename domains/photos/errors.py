"""Turning Pillow's exceptions into domain errors that say what to change.

A damaged, truncated or mislabelled image is foreseeable bad input: it must reach the model as
a refusal naming the file, never as a decoder's stack trace."""

from __future__ import annotations

from contextlib import AbstractContextManager

from facade.kit import InvalidRequest

from domains.photos.sandbox import SANDBOX


def decoding(path: str) -> AbstractContextManager[None]:
    """Refuse, inside the block, an image Pillow cannot read. Decoders raise a wide range of
    exceptions on damaged input (UnidentifiedImageError and truncated-file errors are errno-less
    OSErrors, others are ValueError, SyntaxError, struct.error…)."""
    return SANDBOX.parsing(
        path,
        lambda detail: InvalidRequest(
            f"{path} is not an image this library can read ({detail}); give a JPEG, PNG, WebP, GIF, TIFF or BMP file"
        ),
    )

"""File content in and out of a tool result: text or base64, and the size limits."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Literal

from facade.kit import InvalidRequest

ReadEncoding = Literal["auto", "text", "base64"]
WriteEncoding = Literal["text", "base64"]

# A NUL in the first 8 KiB is how git and grep tell binary from text; good enough here.
BINARY_SNIFF_BYTES = 8192


def decode(data: bytes, encoding: ReadEncoding) -> tuple[str, str]:
    """`data` as a string and the encoding used; "auto" is text when the bytes are UTF-8."""
    if encoding == "base64":
        return base64.b64encode(data).decode("ascii"), "base64"
    if encoding == "text":
        return data.decode("utf-8", errors="replace"), "text"
    try:
        return data.decode("utf-8"), "text"
    except UnicodeDecodeError:
        return base64.b64encode(data).decode("ascii"), "base64"


def encode(content: str, encoding: WriteEncoding) -> bytes:
    """The bytes to store for `content`."""
    if encoding == "text":
        return content.encode("utf-8")
    try:
        return base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidRequest("content is not valid base64; send base64 text or pass encoding='text'") from None


def looks_binary(sample: bytes) -> bool:
    return b"\x00" in sample[:BINARY_SNIFF_BYTES]


def too_big(given: str, size: int, limit: int) -> InvalidRequest:
    """The refusal for a read over the limit; it says how to read a part instead."""
    return InvalidRequest(
        f"{given} is {size:,} bytes, over the {limit:,}-byte read limit; pass offset and length "
        f"(length at most {limit:,}) to read a part of it"
    )


def check_write(size: int, limit: int, what: str = "content") -> None:
    if size > limit:
        raise InvalidRequest(
            f"{what} is {size:,} bytes, over the {limit:,}-byte write limit; write it in parts with files.append"
        )


def read_text(real: Path, given: str, limit: int, strict: bool = False) -> str:
    """A whole text file, refused when it is over `limit` or binary (for diff and replace);
    `strict` also refuses bytes that are not UTF-8, where a rewrite would corrupt them."""
    size = real.stat().st_size
    if size > limit:
        raise InvalidRequest(
            f"{given} is {size:,} bytes, over the {limit:,}-byte limit for whole-file text work; "
            "read it in parts with files.read offset and length"
        )
    data = real.read_bytes()
    if looks_binary(data):
        raise InvalidRequest(f"{given} is a binary file; read it with files.read encoding='base64'")
    try:
        return data.decode("utf-8", errors="strict" if strict else "replace")
    except UnicodeDecodeError:
        raise InvalidRequest(f"{given} is not UTF-8 text; it can only be rewritten whole with files.write") from None

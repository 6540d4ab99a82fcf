"""Argument types shared by the files capabilities. A path is relative to the root; that rule
is written once for every tool (TOOLS.md), never repeated in a field description."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

# No max_length: the filesystem refuses an over-long name itself (mapped to a clear error), and
# a bound on every path field would cost catalogue bytes on every tool for nothing.
FilePath = Annotated[str, Field(min_length=1)]
FolderPath = str
Limit = Annotated[int, Field(ge=1, le=1000)]
Offset = Annotated[int, Field(ge=0)]
Algorithm = Literal["md5", "sha1", "sha256", "sha512", "blake2b"]

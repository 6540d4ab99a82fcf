"""Rich results: what a capability returns when text and structured data are not enough — an
image (a photo's thumbnail, a chart), audio, or a resource embedded whole — mixed with text.

A handler returns `Content(blocks, data=...)` instead of a plain dict: the blocks become the
call result's `content`, `data` (when given) its `structuredContent`. Prompts (facade/kit/
prompts.py) and resources reuse the same blocks. Nothing here knows MCP's wire shapes; the MCP
layer (facade/mcp/content.py) renders them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Text:
    """A block of text."""

    text: str


@dataclass(frozen=True, slots=True)
class Image:
    """An image, as its bytes (sent base64-encoded)."""

    data: bytes
    mime_type: str = "image/png"


@dataclass(frozen=True, slots=True)
class Audio:
    """A sound, as its bytes (sent base64-encoded)."""

    data: bytes
    mime_type: str = "audio/wav"


@dataclass(frozen=True, slots=True)
class Embedded:
    """A resource carried whole inside a result: its `uri` and either `text` or `blob` bytes."""

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str = "text/plain"

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"embedded resource {self.uri!r}: give exactly one of text= or blob=")


Block = Text | Image | Audio | Embedded
BLOCK_TYPES = (Text, Image, Audio, Embedded)


@dataclass(frozen=True, slots=True)
class Content:
    """A capability's result as content blocks, with optional structured data beside them.

    Attributes:
        blocks: what the client shows, in order.
        data: a JSON object for `structuredContent` (a model reads it; a host may too).
    """

    blocks: tuple[Block, ...]
    data: Mapping[str, Any] | None = None

    def __init__(self, *blocks: Block | str, data: Mapping[str, Any] | None = None) -> None:
        made = tuple(Text(b) if isinstance(b, str) else b for b in blocks)
        wrong = [type(b).__name__ for b in made if not isinstance(b, BLOCK_TYPES)]
        if wrong:
            raise TypeError(f"Content takes Text, Image, Audio, Embedded or str blocks, not {', '.join(wrong)}")
        if not made and data is None:
            raise ValueError("Content needs at least one block or data")
        object.__setattr__(self, "blocks", made)
        object.__setattr__(self, "data", data)

"""The kit's content blocks (facade/kit/content.py) as MCP's wire types: one rendering for tool
results, prompt messages and resource contents."""

from __future__ import annotations

import base64

import mcp_types as types

from facade.kit.content import Audio, Block, Embedded, Image, Text


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def resource_contents(uri: str, mime_type: str, value: str | bytes) -> types.TextResourceContents | types.BlobResourceContents:
    if isinstance(value, bytes):
        return types.BlobResourceContents(uri=uri, mime_type=mime_type, blob=_b64(value))
    return types.TextResourceContents(uri=uri, mime_type=mime_type, text=value)


def to_block(block: Block) -> types.ContentBlock:
    if isinstance(block, Text):
        return types.TextContent(type="text", text=block.text)
    if isinstance(block, Image):
        return types.ImageContent(type="image", data=_b64(block.data), mime_type=block.mime_type)
    if isinstance(block, Audio):
        return types.AudioContent(type="audio", data=_b64(block.data), mime_type=block.mime_type)
    if isinstance(block, Embedded):
        value = block.text if block.text is not None else block.blob
        assert value is not None  # Embedded checks one of them is given
        return types.EmbeddedResource(type="resource", resource=resource_contents(block.uri, block.mime_type, value))
    raise TypeError(f"not a content block: {block!r}")

"""Small, valid files that domains' seeds write into their folders, built without a library so
that the demo data is the same byte for byte on every machine."""

from __future__ import annotations

import struct
import zlib


def pixel_png(rgb: tuple[int, int, int]) -> bytes:
    """A valid 1x1 PNG of one colour: a real binary file for base64 reads, hashing and archives."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # width, height, 8-bit RGB, no interlace
    pixels = zlib.compress(bytes([0, *rgb]), 9)  # one scanline: filter byte 0, then the pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")

"""Demo files for domains' seeds: small valid files built without a library, and the archives
in which a domain ships the demo files it made once, so that the demo data is the same byte for
byte on every machine."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import struct
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path


def pixel_png(rgb: tuple[int, int, int]) -> bytes:
    """A valid 1x1 PNG of one colour: a real binary file for base64 reads, hashing and archives."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # width, height, 8-bit RGB, no interlace
    pixels = zlib.compress(bytes([0, *rgb]), 9)  # one scanline: filter byte 0, then the pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


# Every member of an archive made here carries this time (zip's earliest), so that the same files
# make the same archive on any day, in any time zone.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def pack_files(members: Mapping[str, bytes]) -> bytes:
    """A zip of `members` (name → bytes) that depends on nothing but them: names in order, one
    fixed time, one compression level. Seeds ship their demo files packed like this, because
    drawing and typesetting them at the first start was ~1.1 s of CPU (issue 17)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, members[name], compresslevel=9)
    return buffer.getvalue()


# The member of a shipped archive that names what made the others: the digest of their sources.
MADE_FROM = "made-from.sha256"


def source_digest(modules: Iterable[str]) -> str:
    """The sha256 of the named modules' source text, line ends made one: what an archive's files
    were made from. An archive is current when it was made from today's sources, not when a new
    build is byte-equal to it: a library release changes the bytes a writer makes (fpdf2 stamps
    its version into every PDF, zlib builds differ) without changing what the files say."""
    digest = hashlib.sha256()
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise LookupError(f"no source for module {name!r}")
        digest.update(name.encode() + b"\0" + Path(spec.origin).read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()


def archive_digest(path: Path) -> str | None:
    """The source digest an archive was made from, or None when it records none."""
    with zipfile.ZipFile(path) as archive:
        return archive.read(MADE_FROM).decode() if MADE_FROM in archive.namelist() else None


def unpack_files(path: Path) -> dict[str, bytes]:
    """The members of an archive `pack_files` made, name → bytes."""
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def steady_zip(data: bytes) -> bytes:
    """A zip-based file (.docx, .xlsx) with every member's time set to FIXED_TIME: their writers
    stamp the clock of the moment into each member, so two builds of one document differ."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(buffer, "w") as out:
        for member in source.infolist():
            info = zipfile.ZipInfo(member.filename, FIXED_TIME)
            info.compress_type = member.compress_type
            info.external_attr = member.external_attr
            out.writestr(info, source.read(member))
    return buffer.getvalue()

"""EXIF: what a photo's metadata says (date, camera, GPS), changing or removing fields, and
putting the result back into the file without re-encoding its pixels."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from PIL import ExifTags, Image, TiffImagePlugin

IFD = ExifTags.IFD
TAG = ExifTags.Base
GPS = ExifTags.GPS
EXIF_DATE = "%Y:%m:%d %H:%M:%S"
OFFSET = re.compile(r"([+-])(\d{2}):(\d{2})")
MAX_APP1 = 65533  # a JPEG segment's length field is 16 bits and counts itself


@dataclass(frozen=True, slots=True)
class Summary:
    """The fields of a photo's EXIF the library keeps in its row."""

    taken_at: datetime | None
    camera_make: str | None
    camera_model: str | None
    latitude: float | None
    longitude: float | None


def text(value: Any) -> str | None:
    """An EXIF string as text: cameras pad with NULs and spaces, some write bytes."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    cleaned = str(value).replace("\x00", "").strip()
    return cleaned or None


def parse_taken(value: Any, offset: Any) -> datetime | None:
    """DateTimeOriginal with its OffsetTimeOriginal; without an offset the time is taken as UTC
    (EXIF 2.2 cameras record local time with no zone, and no better guess exists)."""
    raw = text(value)
    if raw is None:
        return None
    try:
        moment = datetime.strptime(raw[:19], EXIF_DATE)
    except ValueError:
        return None  # "0000:00:00 00:00:00" and other placeholders mean "unknown"
    zone: timezone = UTC
    match = OFFSET.fullmatch(text(offset) or "")
    if match:
        sign = -1 if match.group(1) == "-" else 1
        zone = timezone(sign * timedelta(hours=int(match.group(2)), minutes=int(match.group(3))))
    return moment.replace(tzinfo=zone).astimezone(UTC)


def _degrees(dms: Any, ref: Any, negative: str) -> float | None:
    try:
        d, m, s = (float(part) for part in dms)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    value = d + m / 60 + s / 3600
    return round(-value if text(ref) == negative else value, 6)


def summary(exif: Image.Exif) -> Summary:
    sub = exif.get_ifd(IFD.Exif)
    gps = exif.get_ifd(IFD.GPSInfo)
    latitude = _degrees(gps.get(GPS.GPSLatitude), gps.get(GPS.GPSLatitudeRef), "S")
    longitude = _degrees(gps.get(GPS.GPSLongitude), gps.get(GPS.GPSLongitudeRef), "W")
    if latitude is None or longitude is None or not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        latitude = longitude = None
    return Summary(
        taken_at=parse_taken(sub.get(TAG.DateTimeOriginal) or exif.get(TAG.DateTime), sub.get(TAG.OffsetTimeOriginal)),
        camera_make=(text(exif.get(TAG.Make)) or "")[:100] or None,
        camera_model=(text(exif.get(TAG.Model)) or "")[:100] or None,
        latitude=latitude,
        longitude=longitude,
    )


def readable(exif: Image.Exif) -> dict[str, Any]:
    """The fields people ask about, by name, with units."""
    found = summary(exif)
    sub = exif.get_ifd(IFD.Exif)
    exposure = sub.get(TAG.ExposureTime)
    return {
        "taken_at": found.taken_at.isoformat() if found.taken_at else None,
        "camera_make": found.camera_make,
        "camera_model": found.camera_model,
        "lens": text(sub.get(TAG.LensModel)),
        "latitude": found.latitude,
        "longitude": found.longitude,
        "orientation": exif.get(TAG.Orientation),
        "exposure_time_s": float(exposure) if exposure is not None else None,
        "f_number": _number(sub.get(TAG.FNumber)),
        "iso": sub.get(TAG.ISOSpeedRatings),
        "focal_length_mm": _number(sub.get(TAG.FocalLength)),
        "description": text(exif.get(TAG.ImageDescription)),
        "artist": text(exif.get(TAG.Artist)),
        "software": text(exif.get(TAG.Software)),
    }


def _number(value: Any) -> float | None:
    try:
        return round(float(value), 2) if value is not None else None
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def dms(value: float) -> tuple[float, float, float]:
    """Decimal degrees as EXIF's (degrees, minutes, seconds)."""
    value = abs(value)
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    seconds = round((value - degrees - minutes / 60) * 3600, 4)
    return float(degrees), float(minutes), seconds


def set_fields(exif: Image.Exif, changes: dict[str, Any]) -> None:
    """Write the given fields: taken_at, camera_make, camera_model, latitude+longitude,
    description, artist."""
    if "taken_at" in changes:
        moment: datetime = changes["taken_at"]
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        sub = exif.get_ifd(IFD.Exif)
        sub[TAG.DateTimeOriginal] = moment.strftime(EXIF_DATE)
        offset = moment.strftime("%z")
        sub[TAG.OffsetTimeOriginal] = f"{offset[:3]}:{offset[3:]}"
    for field, tag in (("camera_make", TAG.Make), ("camera_model", TAG.Model),
                       ("description", TAG.ImageDescription), ("artist", TAG.Artist)):
        if field in changes:
            exif[tag] = changes[field]
    if "latitude" in changes:
        gps = exif.get_ifd(IFD.GPSInfo)
        gps[GPS.GPSVersionID] = b"\x02\x03\x00\x00"
        gps[GPS.GPSLatitudeRef] = "S" if changes["latitude"] < 0 else "N"
        gps[GPS.GPSLatitude] = dms(changes["latitude"])
        gps[GPS.GPSLongitudeRef] = "W" if changes["longitude"] < 0 else "E"
        gps[GPS.GPSLongitude] = dms(changes["longitude"])


STRIP_GROUPS: dict[str, tuple[int, ...]] = {
    "camera": (TAG.Make, TAG.Model),
    "description": (TAG.ImageDescription,),
    "artist": (TAG.Artist, TAG.Copyright),
}


def strip(exif: Image.Exif, fields: list[str] | None) -> list[str]:
    """Remove field groups (gps, camera, date, description, artist); None removes everything but
    the orientation, which a viewer needs to show the picture upright. Returns what was there."""
    removed: list[str] = []
    if fields is None:
        removed = [name for tags in raw(exif).values() for name in tags if name != "Orientation"]
        orientation = exif.get(TAG.Orientation)
        exif.clear()
        if orientation is not None:
            exif[TAG.Orientation] = orientation
        return removed
    for group in fields:
        if group == "gps":
            if exif.get_ifd(IFD.GPSInfo) or IFD.GPSInfo in exif:
                removed.append("gps")
            exif.get_ifd(IFD.GPSInfo).clear()
            exif.pop(IFD.GPSInfo, None)
        elif group == "date":
            sub = exif.get_ifd(IFD.Exif)
            for tag in (TAG.DateTimeOriginal, TAG.OffsetTimeOriginal, TAG.DateTimeDigitized):
                if sub.pop(tag, None) is not None:
                    removed.append(TAG(tag).name)
            if exif.pop(TAG.DateTime, None) is not None:
                removed.append("DateTime")
        else:
            for tag in STRIP_GROUPS[group]:
                if exif.pop(tag, None) is not None:
                    removed.append(TAG(tag).name)
    return removed


def raw(exif: Image.Exif) -> dict[str, dict[str, Any]]:
    """Every tag of every IFD, named where Pillow knows the name, as JSON."""
    out: dict[str, dict[str, Any]] = {"IFD0": {_name(t, ExifTags.TAGS): _json(v) for t, v in exif.items() if t not in (IFD.Exif, IFD.GPSInfo)}}
    for ifd, names in ((IFD.Exif, ExifTags.TAGS), (IFD.GPSInfo, ExifTags.GPSTAGS)):
        values = exif.get_ifd(ifd)
        if values:
            out[ifd.name] = {_name(t, names): _json(v) for t, v in values.items()}
    return out


def _name(tag: int, names: dict[int, str]) -> str:
    return names.get(tag, f"0x{tag:04x}")


def _json(value: Any) -> Any:
    if isinstance(value, TiffImagePlugin.IFDRational):
        return float(value) if value.denominator else None
    if isinstance(value, bytes):
        printable = value.rstrip(b"\x00")
        return printable.decode("ascii") if printable.isascii() and printable.decode("ascii").isprintable() else value.hex()
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, str):
        return value.replace("\x00", "")
    return value


def splice_jpeg(data: bytes, exif: Image.Exif | None) -> bytes:
    """The JPEG `data` with its EXIF segment replaced by `exif` (or removed when None), every
    other byte kept: editing metadata never re-encodes the picture."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG stream (no start-of-image marker)")
    i = 2
    leading: list[bytes] = []  # JFIF/APP0 segments must stay first
    rest: list[bytes] = []
    while True:
        if i + 4 > len(data) or data[i] != 0xFF:
            raise ValueError("damaged JPEG header")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte before a marker
            i += 1
            continue
        if marker in (0xDA, 0xD9):  # start of scan: the rest is picture data
            break
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        segment = data[i : i + 2 + length]
        if marker == 0xE0 and not rest:
            leading.append(segment)
        elif not (marker == 0xE1 and segment[4:10] == b"Exif\x00\x00"):
            rest.append(segment)
        i += 2 + length
    payload = b""
    if exif is not None and len(exif):
        body = exif.tobytes()
        if len(body) > MAX_APP1:
            raise ValueError(f"the EXIF block would be {len(body)} bytes, over the JPEG limit of {MAX_APP1}")
        payload = b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body
    return b"\xff\xd8" + b"".join(leading) + payload + b"".join(rest) + data[i:]

"""Domain names as this domain stores them, written once: zone names and host-name values fully
qualified without the trailing dot, owner names relative to their zone ("@" for the apex).
Each function raises ValueError with a message fit for the caller; inputs and rules turn it
into their own refusal."""

from __future__ import annotations

import re

# Letters, digits, hyphens, and underscores for service labels (_sip._tcp, _dmarc).
LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
APEX = "@"


def absolute(name: str) -> str:
    """A fully qualified name, lowercased, without the trailing dot; "." (the root) stays "."."""
    text = name.strip().lower()
    if text == ".":
        return "."
    text = text.removesuffix(".")
    labels = text.split(".")
    if not text or len(text) > 253 or not all(LABEL.match(label) for label in labels):
        raise ValueError(
            f"{name!r} is not a valid domain name; use letters, digits, '-' and '_' in dot-separated "
            "labels of at most 63 characters, e.g. mail.example.com"
        )
    return text


def zone_name(name: str) -> str:
    text = absolute(name)
    if text == ".":
        raise ValueError("the root zone cannot be managed here; give a zone such as example.com")
    return text


def relative(name: str, zone: str) -> str:
    """The owner name relative to `zone`. Accepts "@", a relative name ("www"), or a full name
    inside the zone ("www.example.com", with or without the trailing dot)."""
    text = name.strip().lower()
    if text in (APEX, "", zone, f"{zone}."):
        return APEX
    if text.endswith(".") and not within(text.removesuffix("."), zone):
        raise ValueError(f"{name!r} is not inside the zone {zone}; give a name relative to the zone such as 'www'")
    text = text.removesuffix(".").removesuffix(f".{zone}")
    labels = text.split(".")
    wildcard_ok = labels[0] == "*" and all(LABEL.match(x) for x in labels[1:])
    if not (wildcard_ok or all(LABEL.match(x) for x in labels)) or len(text) + len(zone) + 1 > 253:
        raise ValueError(
            f"{name!r} is not a valid owner name in {zone}; give a name relative to the zone such as "
            "'www' or '_dmarc', '@' for the apex, or '*' as the first label of a wildcard"
        )
    return text


def fqdn(owner: str, zone: str) -> str:
    """The full name of an owner relative to `zone`."""
    return zone if owner == APEX else f"{owner}.{zone}"


def within(name: str, zone: str) -> bool:
    """Whether the full name `name` lies in `zone` (the apex included)."""
    return name == zone or name.endswith(f".{zone}")


def is_reverse(zone: str) -> bool:
    return zone.endswith(("in-addr.arpa", "ip6.arpa"))

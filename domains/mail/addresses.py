"""Addresses as RFC 5322 lists: parsed and checked once on the way in, stored as
"Name <addr>, addr" text, and split again on the way out."""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.utils import formataddr, getaddresses, parseaddr

from facade.kit import InvalidRequest

ADDR = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;.]+$")


def normalise(value: str, field: str = "address") -> str:
    """`value` ("Name <a@b.example>" or "a@b.example") in canonical form; InvalidRequest if it is
    not one address."""
    pairs = getaddresses([value])
    name, addr = pairs[0] if len(pairs) == 1 else ("", "")
    if not addr or not ADDR.match(addr):
        raise InvalidRequest(
            f"{field} {value!r} is not one e-mail address; write 'name@example.com' or 'Name <name@example.com>'"
        )
    return formataddr((name, addr.lower())) if name else addr.lower()


def join(values: Iterable[str], field: str = "address") -> str:
    """Several addresses as one stored list, each normalised, duplicates dropped."""
    seen: dict[str, str] = {}
    for value in values:
        canonical = normalise(value, field)
        seen.setdefault(email_of(canonical), canonical)
    return ", ".join(seen.values())


def split(stored: str) -> list[str]:
    """A stored list back as its addresses, names kept."""
    return [formataddr(pair) if pair[0] else pair[1] for pair in getaddresses([stored]) if pair[1]]


def emails(stored: str) -> list[str]:
    """The bare, lower-cased addresses of a stored list."""
    return [addr.lower() for _name, addr in getaddresses([stored]) if addr]


def email_of(value: str) -> str:
    return parseaddr(value)[1].lower()


def name_of(value: str) -> str:
    name, addr = parseaddr(value)
    return name or addr.split("@", 1)[0]

"""The system resolver's view (socket.getaddrinfo, as every program on this machine sees it):
a lookup of one name, and a comparison of a zone's addresses with what it answers. A name that
does not resolve is an answer, returned as data."""

from __future__ import annotations

import ipaddress
import socket
import time
from collections import defaultdict
from typing import Any

from domains.dns import inputs, names
from domains.dns.entities import ZONE
from domains.dns.tables import Record, Zone
from facade.kit import CallContext, Toolset

tools = Toolset()
FAMILIES = {"any": socket.AF_UNSPEC, "ipv4": socket.AF_INET, "ipv6": socket.AF_INET6}


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def lookup(name: str, family: str = "any") -> dict[str, Any]:
    """Addresses of a host name, or the host name of an address (a reverse lookup)."""
    started = time.perf_counter()
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = None
    if address is not None:
        try:
            host, aliases, _ = socket.gethostbyaddr(str(address))
        except (socket.herror, socket.gaierror, OSError) as exc:
            return {"name": name, "resolved": False, "error": _error(exc), "latency_ms": _ms(started)}
        return {"name": name, "resolved": True, "hostname": host, "aliases": aliases, "latency_ms": _ms(started)}
    try:
        infos = socket.getaddrinfo(name, None, FAMILIES[family], socket.SOCK_STREAM, 0, socket.AI_CANONNAME)
    except (OSError, UnicodeError) as exc:
        return {"name": name, "resolved": False, "error": _error(exc), "latency_ms": _ms(started)}
    found = list(dict.fromkeys(str(ipaddress.ip_address(info[4][0])) for info in infos))
    canonical = next((info[3] for info in infos if info[3]), None)
    return {"name": name, "resolved": True, "addresses": found, "canonical_name": canonical, "latency_ms": _ms(started)}


def _error(exc: BaseException) -> str:
    if isinstance(exc, socket.gaierror | socket.herror):
        return exc.strerror or str(exc)
    return str(exc) or type(exc).__name__


def compare(zone: Zone, records: list[Record], max_names: int) -> dict[str, Any]:
    """For each name with A/AAAA records, the addresses the zone holds against the addresses
    the system resolver answers."""
    expected: dict[str, set[str]] = defaultdict(set)
    for r in records:
        if r.type in ("A", "AAAA") and not r.name.startswith("*"):
            expected[names.fqdn(r.name, zone.name)].add(r.value)
    checked = sorted(expected)[:max_names]
    results = []
    for name in checked:
        answer = lookup(name)
        want = expected[name]
        if not answer["resolved"]:
            results.append({"name": name, "status": "unresolved", "expected": sorted(want), "error": answer["error"]})
            continue
        got = set(answer["addresses"])
        results.append(
            {
                "name": name,
                "status": "match" if got == want else "mismatch",
                "expected": sorted(want),
                "answered": sorted(got),
                "missing": sorted(want - got),
                "unexpected": sorted(got - want),
            }
        )
    counts = {s: sum(1 for r in results if r["status"] == s) for s in ("match", "mismatch", "unresolved")}
    return {
        "zone": zone.name,
        "names": results,
        **counts,
        "not_checked": len(expected) - len(checked),
    }


@tools.capability("resolve", read_only=True, example={"name": "localhost"})
def resolve(ctx: CallContext, args: inputs.Resolve) -> dict[str, Any]:
    """Resolve a name, or reverse-resolve an address, with this machine's system resolver."""
    return lookup(args.name, args.family)


@tools.capability("zone_compare", read_only=True, example={"zone_id": 2})
def zone_compare(ctx: CallContext, args: inputs.ZoneCompare) -> dict[str, Any]:
    """Compare a zone's A and AAAA records with what the system resolver answers."""
    found = ZONE.fetch(ctx.db, args.zone_id)
    return compare(found, list(found.records), args.max_names)

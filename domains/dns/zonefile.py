"""Zones as RFC 1035 master files: written from the stored records, and read with dnspython
into the values the rules then check like any other record."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

from domains.dns import names
from domains.dns.tables import Record, RecordType, Zone
from facade.kit import InvalidRequest, importing

# dnspython is imported by `parse`, the one reader of zone files: at module level it was part of
# every server's start-up (issue 14), for the few calls that import a zone.
if TYPE_CHECKING:
    import dns.name

SUPPORTED: tuple[str, ...] = get_args(RecordType)  # what the records table accepts
TYPE_ORDER = {t: i for i, t in enumerate(("NS", "A", "AAAA", "CNAME", "MX", "TXT", "SRV", "PTR"))}
TXT_CHUNK = 255  # the longest character-string a TXT record holds (RFC 1035 section 3.3)


# Writing


def _host(name: str) -> str:
    return "." if name == "." else f"{name}."


def _rname(email: str) -> str:
    """hostmaster@example.com as the SOA writes it: hostmaster.example.com. (dots in the local
    part escaped, RFC 1035 section 8)."""
    local, _, domain = email.partition("@")
    return f"{local.replace('.', chr(92) + '.')}.{domain}."


def _quoted(text: str) -> str:
    data = text.encode()
    chunks = [data[i : i + TXT_CHUNK] for i in range(0, len(data), TXT_CHUNK)] or [b""]
    return " ".join('"' + _escape(chunk) + '"' for chunk in chunks)


def _escape(chunk: bytes) -> str:
    out = []
    for byte in chunk:
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\{byte:03d}")  # non-ASCII bytes as decimal escapes
    return "".join(out)


def rdata(r: Record) -> str:
    if r.type in ("A", "AAAA"):
        return r.value
    if r.type == "TXT":
        return _quoted(r.value)
    if r.type == "MX":
        return f"{r.priority} {_host(r.value)}"
    if r.type == "SRV":
        return f"{r.priority} {r.weight} {r.port} {_host(r.value)}"
    return _host(r.value)


def _name_key(owner: str) -> tuple[tuple[int, int, str], ...]:
    # DNS order compares the rightmost label first; numeric labels (reverse zones) as numbers.
    return tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in reversed(owner.split(".")))


def sort_key(r: Record) -> tuple[Any, ...]:
    # The apex first, then names in DNS order, each name's records grouped by type.
    return (r.name != names.APEX, _name_key(r.name), TYPE_ORDER[r.type], r.priority or 0, r.value, r.id)


def export(zone: Zone, records: list[Record]) -> str:
    lines = [
        f"$ORIGIN {zone.name}.",
        f"$TTL {zone.ttl}",
        f"@\tIN\tSOA\t{_host(zone.primary_ns)} {_rname(zone.admin_email)} (",
        f"\t\t{zone.serial}\t; serial",
        f"\t\t{zone.refresh}\t; refresh",
        f"\t\t{zone.retry}\t; retry",
        f"\t\t{zone.expire}\t; expire",
        f"\t\t{zone.minimum} )\t; negative-caching TTL",
    ]
    for r in sorted(records, key=sort_key):
        ttl = f"{r.ttl}\t" if r.ttl is not None else ""
        lines.append(f"{r.name}\t{ttl}IN\t{r.type}\t{rdata(r)}")
    return "\n".join(lines) + "\n"


# Reading


@dataclass
class Parsed:
    """A zone file's content: the zone's SOA fields and its records' values, unchecked."""

    name: str
    soa: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)


_LINE = re.compile(r":(\d+): ")


def parse(text: str, name: str | None) -> Parsed:
    with importing():  # one lazy import at a time (facade/kit/lazy_imports.py)
        import dns.exception
        import dns.name
        import dns.rdatatype
        import dns.zone
        import dns.zonefile

    origin = dns.name.from_text(name) if name else None
    try:
        zone = dns.zone.from_text(text, origin=origin, relativize=False, check_origin=True)
    except dns.zonefile.CNAMEAndOtherData:
        clash = _cname_clash(text)
        where = (
            f"line {clash[1]} gives {clash[0]} a CNAME and other records"
            if clash
            else "a name has a CNAME and other records"
        )
        raise InvalidRequest(
            f"{where}; a CNAME must be alone at its name — remove one of them and import again"
        ) from None
    except (dns.zonefile.UnknownOrigin, dns.zone.UnknownOrigin):
        raise InvalidRequest("the zone file has no $ORIGIN; give the zone's name with name='example.com'") from None
    except dns.exception.SyntaxError as exc:
        message = str(exc)
        found = _LINE.search(message)
        detail = (_LINE.split(message, maxsplit=1)[-1] if found else message).rstrip(".")
        where = f"line {found.group(1)}" if found else "the zone file"
        raise InvalidRequest(f"{where} is malformed: {detail}; fix it and import again") from None
    except dns.zone.NoSOA:
        raise InvalidRequest("the zone file has no SOA record at its origin; add one and import again") from None
    except dns.zone.NoNS:
        raise InvalidRequest("the zone file has no NS record at its origin; add one and import again") from None
    except dns.exception.DNSException as exc:
        raise InvalidRequest(f"the zone file cannot be read ({exc}); fix it and import again") from None
    apex = zone.origin
    assert apex is not None  # from_text refuses a file whose origin it cannot tell
    zone_name = names.zone_name(apex.to_text())
    soa = zone.find_rdataset(apex, "SOA")
    soa_rr = soa[0]
    parsed = Parsed(
        name=zone_name,
        soa={
            "serial": soa_rr.serial,
            "ttl": soa.ttl,
            "primary_ns": names.absolute(soa_rr.mname.to_text()),
            "admin_email": _email(soa_rr.rname),
            "refresh": soa_rr.refresh,
            "retry": soa_rr.retry,
            "expire": soa_rr.expire,
            "minimum": soa_rr.minimum,
        },
    )
    for owner, node in sorted(zone.nodes.items()):
        relative = owner.relativize(apex).to_text().lower()
        for rdataset in node.rdatasets:
            kind = dns.rdatatype.to_text(rdataset.rdtype)
            if kind == "SOA":
                continue
            if kind not in SUPPORTED:
                raise InvalidRequest(
                    f"{owner.to_text()} has a {kind} record, which this domain does not manage "
                    f"(supported: {', '.join(SUPPORTED)}); remove it from the file and import again"
                )
            ttl = None if rdataset.ttl == soa.ttl else rdataset.ttl
            for rr in rdataset:
                parsed.records.append({"name": relative, "type": kind, "ttl": ttl, **_fields(kind, rr)})
    return parsed


def _cname_clash(text: str) -> tuple[str, int] | None:
    """The owner and line where a CNAME first meets other records, read line by line (dnspython
    says only that it happened). Best effort: owners are compared as written."""
    owner: str | None = None
    seen: dict[str, set[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        body = line.split(";", 1)[0]
        if not body.strip() or body.lstrip().startswith("$"):
            continue
        tokens = body.split()
        if not body[0].isspace():
            owner = tokens[0].lower()
        kind = next((t.upper() for t in tokens if t.upper() in (*SUPPORTED, "SOA")), None)
        if owner is None or kind is None:
            continue
        kinds = seen.setdefault(owner, set())
        kinds.add(kind)
        if "CNAME" in kinds and len(kinds) > 1:
            return owner, number
    return None


def _email(rname: dns.name.Name) -> str:
    labels = [label.decode() for label in rname.labels if label]
    return f"{labels[0]}@{'.'.join(labels[1:])}".lower() if len(labels) > 1 else labels[0].lower()


def _fields(kind: str, rr: Any) -> dict[str, Any]:
    if kind in ("A", "AAAA"):
        return {"value": rr.address, "priority": None, "weight": None, "port": None}
    if kind == "TXT":
        text = b"".join(rr.strings).decode("utf-8", errors="replace")
        return {"value": text, "priority": None, "weight": None, "port": None}
    if kind == "MX":
        return {"value": rr.exchange.to_text(), "priority": rr.preference, "weight": None, "port": None}
    if kind == "SRV":
        return {"value": rr.target.to_text(), "priority": rr.priority, "weight": rr.weight, "port": rr.port}
    return {"value": rr.target.to_text(), "priority": None, "weight": None, "port": None}

"""The domain's rules, each written once: what each record type may hold, a CNAME stands
alone at its name, no record is duplicated, and every change bumps the zone's serial and is
written to the history."""

from __future__ import annotations

import ipaddress
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.dns import names
from domains.dns.entities import snapshot
from domains.dns.tables import Change, Record, Zone
from facade.kit import Conflict, InvalidRequest, utcnow

MAX_SERIAL = 2**32 - 1
# Which of priority, weight and port each type takes; every other type takes none.
EXTRAS: dict[str, tuple[str, ...]] = {"MX": ("priority",), "SRV": ("priority", "weight", "port")}


def today_serial() -> int:
    """The first serial of today in the YYYYMMDDnn convention (RFC 1912 section 2.2)."""
    return int(utcnow().strftime("%Y%m%d")) * 100


def bump(zone: Zone) -> int:
    """Advance the serial: YYYYMMDDnn while the date convention holds, else by one; past the
    32-bit limit it wraps as RFC 1982 serial arithmetic allows."""
    candidate = max(zone.serial + 1, today_serial())
    zone.serial = candidate if candidate <= MAX_SERIAL else ((zone.serial + 1) % 2**32 or 1)
    zone.updated_at = utcnow()
    return zone.serial


def log(
    db: Session,
    zone: Zone,
    action: str,
    agent: str,
    record_id: int | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> Change:
    entry = Change(
        zone_id=zone.id,
        record_id=record_id,
        action=action,
        serial=zone.serial,
        before=before,
        after=after,
        agent=agent[:120],
    )
    db.add(entry)
    return entry


def zone_name_free(db: Session, name: str) -> None:
    clash = db.scalar(select(Zone.id).where(Zone.name == name))
    if clash is not None:
        raise Conflict(f"zone {clash} is already named {name}; change that zone or pick another name")


def _refuse(exc: ValueError) -> InvalidRequest:
    return InvalidRequest(str(exc))


def normalise(zone: Zone, values: dict[str, Any]) -> dict[str, Any]:
    """The record's fields in stored form, or InvalidRequest saying what to change."""
    kind: str = values["type"]
    try:
        owner = names.relative(values["name"], zone.name)
    except ValueError as exc:
        raise _refuse(exc) from None
    allowed = EXTRAS.get(kind, ())
    for extra in ("priority", "weight", "port"):
        given = values.get(extra) is not None
        if given and extra not in allowed:
            raise InvalidRequest(f"{extra} does not apply to {kind} records; omit it (only {_takers(extra)} take it)")
        if not given and extra in allowed:
            raise InvalidRequest(f"a {kind} record needs {extra}; give {', '.join(allowed)}")
    value = _value(zone, owner, kind, values["value"])
    return {**values, "name": owner, "value": value}


def _takers(extra: str) -> str:
    return " and ".join(t for t, fields in EXTRAS.items() if extra in fields)


def _value(zone: Zone, owner: str, kind: str, raw: str) -> str:
    if kind == "A":
        try:
            return str(ipaddress.IPv4Address(raw))
        except ValueError:
            raise InvalidRequest(
                f"{raw!r} is not an IPv4 address; an A record holds one such as 203.0.113.10 (use AAAA for IPv6)"
            ) from None
    if kind == "AAAA":
        try:
            return str(ipaddress.IPv6Address(raw))
        except ValueError:
            raise InvalidRequest(
                f"{raw!r} is not an IPv6 address; an AAAA record holds one such as 2001:db8::10 (use A for IPv4)"
            ) from None
    if kind == "TXT":
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in raw):
            raise InvalidRequest("TXT text may not hold control characters (newlines, tabs); remove them")
        return raw
    return _target(zone, owner, kind, raw)


def _target(zone: Zone, owner: str, kind: str, raw: str) -> str:
    try:
        ipaddress.ip_address(raw)
    except ValueError:
        pass
    else:
        raise InvalidRequest(
            f"a {kind} record points at a host name, not an address; add an A or AAAA record for the host and "
            "give its name"
        )
    try:
        target = names.absolute(raw)
    except ValueError as exc:
        raise _refuse(exc) from None
    if target == "." and kind not in ("MX", "SRV"):
        raise InvalidRequest(f"'.' (no host) is only meaningful for MX and SRV; give the {kind} record a host name")
    if kind == "CNAME":
        if owner == names.APEX:
            raise InvalidRequest(
                f"a CNAME cannot sit at the apex of {zone.name}, which holds the SOA and NS records; "
                "use A/AAAA records there, or put the CNAME on a name such as 'www'"
            )
        if target == names.fqdn(owner, zone.name):
            raise InvalidRequest("a CNAME cannot point at its own name; give another target")
    if kind == "SRV":
        labels = owner.split(".")
        if len(labels) < 2 or not (labels[0].startswith("_") and labels[1].startswith("_")):
            raise InvalidRequest(f"an SRV record's name is _service._proto, e.g. _sip._tcp; got {owner!r}")
    return target


def check_conflicts(db: Session, zone: Zone, values: dict[str, Any], except_id: int | None = None) -> None:
    """A CNAME stands alone at its name (RFC 1034 section 3.6.2), and no record is stored twice."""
    owner, kind = values["name"], values["type"]
    others = list(
        db.scalars(
            select(Record)
            .where(Record.zone_id == zone.id, Record.name == owner, Record.id != except_id)
            .order_by(Record.id)
        )
    )
    where = names.fqdn(owner, zone.name)
    cnames = [r for r in others if r.type == "CNAME"]
    if cnames:
        raise Conflict(
            f"{where} is a CNAME (record {cnames[0].id}), which no other record may share; "
            "delete the CNAME first or choose another name"
        )
    if kind == "CNAME" and others:
        listed = ", ".join(f"{r.type} {r.id}" for r in others)
        raise Conflict(
            f"{where} already has records ({listed}); a CNAME must be the only record at its name: "
            "delete those or choose another name"
        )
    key = tuple(values.get(f) for f in ("type", "value", "priority", "weight", "port"))
    for r in others:
        if (r.type, r.value, r.priority, r.weight, r.port) == key:
            raise Conflict(f"the same {kind} record already exists at {where} (record {r.id}); nothing to add")


def new_record(db: Session, zone: Zone, values: dict[str, Any], agent: str) -> Record:
    clean = normalise(zone, values)
    check_conflicts(db, zone, clean)
    record = Record(zone=zone, **clean)
    db.add(record)
    db.flush()
    bump(zone)
    log(db, zone, "create", agent, record.id, after=snapshot(record))
    return record


def change_record(db: Session, record: Record, changes: dict[str, Any], agent: str) -> Record:
    """Apply a partial change; fields the new type does not take are cleared unless given."""
    if not changes:
        raise InvalidRequest("nothing to change; give at least one of: name, type, value, ttl, priority, weight, port")
    before = snapshot(record)
    merged = {**before, **changes}
    kept = EXTRAS.get(merged["type"], ())
    for extra in ("priority", "weight", "port"):
        if extra not in kept and extra not in changes:
            merged[extra] = None
    clean = normalise(record.zone, merged)
    check_conflicts(db, record.zone, clean, except_id=record.id)
    if clean == before:
        return record
    for field, value in clean.items():
        setattr(record, field, value)
    bump(record.zone)
    log(db, record.zone, "update", agent, record.id, before=before, after=snapshot(record))
    db.flush()
    return record


def delete_record(db: Session, record: Record, agent: str) -> None:
    zone = record.zone
    bump(zone)
    log(db, zone, "delete", agent, record.id, before=snapshot(record))
    db.delete(record)
    db.flush()

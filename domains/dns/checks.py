"""Whole-zone work: finding what is wrong in a zone, and generating the reverse (PTR) records
of its addresses into the reverse zones this domain manages."""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.dns import names, rules
from domains.dns.entities import snapshot
from domains.dns.tables import Record, Zone

Finding = dict[str, Any]
ADDRESS_TYPES = ("A", "AAAA")


def _finding(severity: str, problem: str, records: list[Record], fix: str) -> Finding:
    return {"severity": severity, "problem": problem, "record_ids": [r.id for r in records], "fix": fix}


def validate(zone: Zone, records: list[Record]) -> dict[str, Any]:
    """Check the zone as a whole: what each record allows on its own is checked when it is
    written; what depends on the others (a target that exists, a CNAME alone) is checked here."""
    by_name: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_name[names.fqdn(r.name, zone.name)].append(r)
    findings: list[Finding] = []
    if not any(r.type == "NS" and r.name == names.APEX for r in records):
        findings.append(
            _finding(
                "error",
                f"{zone.name} has no NS record at its apex",
                [],
                "add one with dns.record_create name='@' type='NS'",
            )
        )
    for where, group in sorted(by_name.items()):
        cnames = [r for r in group if r.type == "CNAME"]
        if cnames and len(group) > 1:
            findings.append(
                _finding(
                    "error", f"{where} has a CNAME and other records", group, "keep either the CNAME or the others"
                )
            )
        rrsets: dict[str, set[int | None]] = defaultdict(set)
        for r in group:
            rrsets[r.type].add(r.ttl)
        for kind, ttls in sorted(rrsets.items()):
            if len(ttls) > 1:
                same = [r for r in group if r.type == kind]
                findings.append(
                    _finding(
                        "warning",
                        f"the {kind} records of {where} have different TTLs",
                        same,
                        "give them one TTL (RFC 2181 section 5.2)",
                    )
                )
    for r in records:
        if r.type not in ("CNAME", "MX", "NS", "SRV") or r.value == "." or not names.within(r.value, zone.name):
            continue
        at_target = by_name.get(r.value, [])
        if not at_target:
            findings.append(
                _finding(
                    "error",
                    f"{r.type} record {r.id} points at {r.value}, which has no records in this zone",
                    [r],
                    f"add an A or AAAA record for {r.value}, or change the {r.type} target",
                )
            )
        elif r.type != "CNAME" and not any(t.type in ADDRESS_TYPES for t in at_target):
            is_alias = any(t.type == "CNAME" for t in at_target)
            problem = "is an alias (CNAME)" if is_alias else "has no A or AAAA record"
            findings.append(
                _finding(
                    "error",
                    f"{r.type} record {r.id} points at {r.value}, which {problem}",
                    [r],
                    f"point the {r.type} at a name with A/AAAA records (RFC 2181 section 10.3)",
                )
            )
    errors = sum(1 for f in findings if f["severity"] == "error")
    return {
        "zone": zone.name,
        "serial": zone.serial,
        "valid": errors == 0,
        "errors": errors,
        "warnings": len(findings) - errors,
        "findings": findings,
    }


def _reverse_zone_for(pointer: str, reverse_zones: list[Zone]) -> Zone | None:
    """The most specific managed reverse zone holding `pointer`."""
    holders = [z for z in reverse_zones if names.within(pointer, z.name)]
    return max(holders, key=lambda z: len(z.name), default=None)


def generate_reverse(db: Session, zone: Zone, dry_run: bool, agent: str) -> dict[str, Any]:
    """A PTR for each A/AAAA record of `zone`, in the reverse zone holding its address."""
    reverse_zones = list(db.scalars(select(Zone).where(Zone.id != zone.id).order_by(Zone.id)))
    reverse_zones = [z for z in reverse_zones if names.is_reverse(z.name)]
    created: list[dict[str, Any]] = []
    existing: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    uncovered: list[dict[str, Any]] = []
    changed: dict[int, int] = {}  # reverse zone id -> its new serial
    addresses = sorted((r for r in zone.records if r.type in ADDRESS_TYPES), key=lambda r: r.id)
    for r in addresses:
        if r.name.startswith("*"):
            continue  # a wildcard names no one host a PTR could point at
        host = names.fqdn(r.name, zone.name)
        pointer = ipaddress.ip_address(r.value).reverse_pointer
        item = {"record_id": r.id, "address": r.value, "host": host, "ptr": pointer}
        target = _reverse_zone_for(pointer, reverse_zones)
        if target is None:
            uncovered.append(item)
            continue
        owner = names.relative(pointer, target.name)
        ptrs = [p for p in target.records if p.type == "PTR" and p.name == owner]
        if any(p.value == host for p in ptrs):
            existing.append(item)
        elif ptrs:
            conflicts.append({**item, "existing": [{"record_id": p.id, "value": p.value} for p in ptrs]})
        else:
            if not dry_run:
                ptr = Record(zone=target, name=owner, type="PTR", value=host)
                db.add(ptr)
                db.flush()
                if target.id not in changed:  # one bump per zone for the whole batch
                    changed[target.id] = rules.bump(target)
                rules.log(db, target, "create", agent, ptr.id, after=snapshot(ptr))
                item = {**item, "ptr_record_id": ptr.id, "reverse_zone_id": target.id}
            created.append(item)
    db.flush()
    return {
        "zone": zone.name,
        "dry_run": dry_run,
        "created": created,
        "already_present": existing,
        "conflicts": conflicts,
        "no_reverse_zone": uncovered,
    }

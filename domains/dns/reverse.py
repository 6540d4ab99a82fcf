"""Reverse records: a PTR for each address of a zone, in the reverse zones this domain manages."""

from __future__ import annotations

import ipaddress
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.dns import inputs, names, rules
from domains.dns.entities import ADDRESS_TYPES, ZONE, snapshot
from domains.dns.tables import Record, Zone
from facade.kit import CallContext, Toolset

tools = Toolset()


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


@tools.capability("reverse_generate", example={"zone_id": 1})
def reverse_generate(ctx: CallContext, args: inputs.ReverseGenerate) -> dict[str, Any]:
    """Create PTR records for a zone's addresses in the managed reverse zones."""
    return generate_reverse(ctx.db, ZONE.fetch(ctx.db, args.zone_id), args.dry_run, ctx.agent)

"""The zone and record entities (facade.kit.records builds their get, list and delete from these)
and their JSON rendering."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement
from sqlalchemy.orm import joinedload

from domains.dns import names
from domains.dns.inputs import ZoneFilter
from domains.dns.tables import Change, Record, Zone
from facade.kit import Entity

# The fields that make a record what it is; a history entry keeps them before and after.
RECORD_FIELDS = ("name", "type", "value", "ttl", "priority", "weight", "port")
# The types that hold a host's address: what a PTR points back from.
ADDRESS_TYPES = ("A", "AAAA")


def zone(z: Zone) -> dict[str, Any]:
    return {
        "id": z.id,
        "name": z.name,
        "kind": "reverse" if names.is_reverse(z.name) else "forward",
        "serial": z.serial,
        "ttl": z.ttl,
        "primary_ns": z.primary_ns,
        "admin_email": z.admin_email,
        "refresh": z.refresh,
        "retry": z.retry,
        "expire": z.expire,
        "minimum": z.minimum,
        "notes": z.notes,
        "created_at": z.created_at.isoformat(),
        "updated_at": z.updated_at.isoformat(),
    }


def snapshot(r: Record) -> dict[str, Any]:
    return {f: getattr(r, f) for f in RECORD_FIELDS}


def record(r: Record) -> dict[str, Any]:
    return {
        "id": r.id,
        "zone_id": r.zone_id,
        "zone": r.zone.name,
        **snapshot(r),
        "fqdn": names.fqdn(r.name, r.zone.name),
        "effective_ttl": r.ttl if r.ttl is not None else r.zone.ttl,
        "created_at": r.created_at.isoformat(),
        "updated_at": r.updated_at.isoformat(),
    }


def change(c: Change) -> dict[str, Any]:
    return {
        "id": c.id,
        "zone_id": c.zone_id,
        "record_id": c.record_id,
        "action": c.action,
        "serial": c.serial,
        "before": c.before,
        "after": c.after,
        "agent": c.agent,
        "changed_at": c.changed_at.isoformat(),
    }


ZONE: Entity[Zone] = Entity("dns", "zone", "zones", Zone, zone)
RECORD: Entity[Record] = Entity("dns", "record", "records", Record, record, load=(joinedload(Record.zone),))


def zones_where(args: ZoneFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.name_contains:
        conditions.append(Zone.name.contains(args.name_contains.lower(), autoescape=True))
    reverse = Zone.name.endswith("in-addr.arpa") | Zone.name.endswith("ip6.arpa")
    if args.kind == "reverse":
        conditions.append(reverse)
    elif args.kind == "forward":
        conditions.append(~reverse)
    return conditions

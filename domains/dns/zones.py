"""Zones: their SOA settings and contacts, created with their apex NS records."""

from __future__ import annotations

from typing import Any

from domains.dns import inputs, rules
from domains.dns.entities import ZONE, record, zone, zones_where
from domains.dns.tables import Record, Zone
from facade.kit import CallContext, InvalidRequest, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability(
    "zone_create",
    example={
        "name": "shop.example.net",
        "primary_ns": "ns1.example.com",
        "admin_email": "hostmaster@example.net",
        "nameservers": ["ns1.example.com", "ns2.example.com"],
    },
)
def zone_create(ctx: CallContext, args: inputs.ZoneCreate) -> Result:
    """Create a zone with its SOA and apex NS records."""
    rules.zone_name_free(ctx.db, args.name)
    fields = args.model_dump(include=set(inputs.ZoneCreate.model_fields) - {"nameservers"})
    created = Zone(serial=rules.today_serial() + 1, **fields)
    ctx.db.add(created)
    ctx.db.flush()
    rules.log(ctx.db, created, "zone_create", ctx.agent, after=zone(created))
    for ns in dict.fromkeys(args.nameservers or [args.primary_ns]):
        values = {"name": "@", "type": "NS", "value": ns, "ttl": None, "priority": None, "weight": None, "port": None}
        ctx.db.add(Record(zone=created, **rules.normalise(created, values)))
    ctx.db.flush()
    return {"zone": zone(created), "records": [record(r) for r in created.records]}


records.add_get(tools, ZONE, example_id=1)
records.add_list(tools, ZONE, inputs.ZoneFilter, where=zones_where, example={"kind": "forward"})


@tools.capability("zone_update", idempotent=True, example={"zone_id": 1, "refresh": 3600, "minimum": 600})
def zone_update(ctx: CallContext, args: inputs.ZoneUpdate) -> Result:
    """Change a zone's default TTL, SOA timers, contacts or notes."""
    target = ZONE.fetch(ctx.db, args.zone_id)
    editable = [f for f in inputs.ZoneUpdate.model_fields if f != "zone_id"]
    changes = {f: getattr(args, f) for f in editable if f in args.model_fields_set}
    if not changes:
        raise InvalidRequest(f"nothing to change; give at least one of: {', '.join(editable)}")
    nulls = [f for f, v in changes.items() if v is None]
    if nulls:
        raise InvalidRequest(f"{', '.join(nulls)} cannot be null; omit a field to keep its value")
    before = {f: getattr(target, f) for f in changes}
    if before == changes:
        return {"zone": zone(target), "changed": False}
    for field, value in changes.items():
        setattr(target, field, value)
    rules.bump(target)
    rules.log(ctx.db, target, "zone_update", ctx.agent, before=before, after=changes)
    ctx.db.flush()
    return {"zone": zone(target), "changed": True}

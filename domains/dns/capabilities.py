"""The dns domain and its capabilities, in registration order.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and must succeed, so deletes come last and target records the seed or an earlier
example made for them. Seeded ids: zones 1-3 (1 example.com, 2 localhost, 3 the reverse zone
113.0.203.in-addr.arpa), records 1-22 (15 is the retired ftp alias the delete example removes);
zone_create's example makes zone 4, which zone_delete's removes; ids are never reused.
Examples resolve only `localhost` (the localhost zone, 2). No capability needs a backend this
machine lacks: a name the system resolver cannot resolve is an answer, returned as data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from domains.dns import checks, inputs, resolver, rules, transfer
from domains.dns.entities import RECORD, RECORD_FIELDS, ZONE, change, record, zone, zones_where
from domains.dns.seed import seed
from domains.dns.tables import Change, Record, Zone
from facade.kit import CallContext, Domain, InvalidRequest, records

Result = dict[str, Any]

domain = Domain(
    "dns",
    description="DNS zones and records, zone files, and the system resolver.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# Zones


@domain.capability(
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


records.add_get(domain, ZONE, example_id=1)
records.add_list(domain, ZONE, inputs.ZoneFilter, where=zones_where, example={"kind": "forward"})


@domain.capability("zone_update", idempotent=True, example={"zone_id": 1, "refresh": 3600, "minimum": 600})
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


# Records


@domain.capability(
    "record_create",
    example={"zone_id": 1, "name": "api", "type": "A", "value": "203.0.113.60", "ttl": 300},
)
def record_create(ctx: CallContext, args: inputs.RecordCreate) -> Result:
    """Add a record to a zone and bump its serial."""
    target = ZONE.fetch(ctx.db, args.zone_id)
    created = rules.new_record(ctx.db, target, args.model_dump(include=set(RECORD_FIELDS)), ctx.agent)
    return {"record": record(created), "serial": target.serial}


records.add_get(domain, RECORD, example_id=3)
records.add_list(
    domain,
    RECORD,
    inputs.RecordFilter,
    references={"zone_id": ZONE},
    description="List records, optionally filtered by zone, name or type.",
    example={"zone_id": 1, "type": "MX"},
)


@domain.capability(
    "record_update", idempotent=True, example={"record_id": 11, "value": "v=spf1 mx ip4:203.0.113.0/24 -all"}
)
def record_update(ctx: CallContext, args: inputs.RecordUpdate) -> Result:
    """Change some fields of a record and bump its zone's serial."""
    found = RECORD.fetch(ctx.db, args.record_id)
    changes = {f: getattr(args, f) for f in RECORD_FIELDS if f in args.model_fields_set}
    for field in ("name", "type", "value"):
        if field in changes and changes[field] is None:
            raise InvalidRequest(f"{field} cannot be null; omit it to keep the current value")
    updated = rules.change_record(ctx.db, found, changes, ctx.agent)
    return {"record": record(updated), "serial": updated.zone.serial}


# Full tier: checks, zone files, reverse records, the resolver, history.


@domain.capability("zone_validate", read_only=True, example={"zone_id": 1})
def zone_validate(ctx: CallContext, args: inputs.ZoneRef) -> Result:
    """Check a zone for CNAME conflicts, dangling targets and missing NS records."""
    found = ZONE.fetch(ctx.db, args.zone_id)
    return checks.validate(found, list(found.records))


@domain.capability("zone_export", read_only=True, example={"zone_id": 1})
def zone_export(ctx: CallContext, args: inputs.ZoneRef) -> Result:
    """Export a zone as an RFC 1035 zone file."""
    return transfer.export(ZONE.fetch(ctx.db, args.zone_id))


IMPORT_EXAMPLE = """$ORIGIN static.example.org.
$TTL 3600
@       IN SOA ns1.example.com. hostmaster.example.org. ( 2026100501 7200 3600 1209600 300 )
@       IN NS  ns1.example.com.
@       IN NS  ns2.example.com.
@       IN A   203.0.113.80
cdn     IN CNAME static.example.org.
img 300 IN A   203.0.113.81
"""


@domain.capability("zone_import", example={"text": IMPORT_EXAMPLE})
def zone_import(ctx: CallContext, args: inputs.ZoneImport) -> Result:
    """Import an RFC 1035 zone file as a new zone, or as the records of an existing one."""
    return transfer.import_zone(ctx.db, args, ctx.agent)


@domain.capability("reverse_generate", example={"zone_id": 1})
def reverse_generate(ctx: CallContext, args: inputs.ReverseGenerate) -> Result:
    """Create PTR records for a zone's addresses in the managed reverse zones."""
    return checks.generate_reverse(ctx.db, ZONE.fetch(ctx.db, args.zone_id), args.dry_run, ctx.agent)


@domain.capability("resolve", read_only=True, example={"name": "localhost"})
def resolve(ctx: CallContext, args: inputs.Resolve) -> Result:
    """Resolve a name, or reverse-resolve an address, with this machine's system resolver."""
    return resolver.lookup(args.name, args.family)


@domain.capability("zone_compare", read_only=True, example={"zone_id": 2})
def zone_compare(ctx: CallContext, args: inputs.ZoneCompare) -> Result:
    """Compare a zone's A and AAAA records with what the system resolver answers."""
    found = ZONE.fetch(ctx.db, args.zone_id)
    return resolver.compare(found, list(found.records), args.max_names)


@domain.capability("record_history", read_only=True, example={"zone_id": 1})
def record_history(ctx: CallContext, args: inputs.RecordHistory) -> Result:
    """List the changes made to a zone and its records, newest first."""
    ZONE.fetch(ctx.db, args.zone_id)
    conditions = [Change.zone_id == args.zone_id]
    if args.record_id is not None:
        conditions.append(Change.record_id == args.record_id)
    total = ctx.db.scalar(select(func.count()).select_from(Change).where(*conditions))
    rows = ctx.db.scalars(
        select(Change).where(*conditions).order_by(Change.id.desc()).limit(args.limit).offset(args.offset)
    )
    return {"changes": [change(c) for c in rows], "total": total}


# Deletes last: they remove what the examples above read.


@domain.capability("record_delete", destructive=True, idempotent=True, example={"record_id": 15})
def record_delete(ctx: CallContext, args: inputs.RecordRef) -> Result:
    """Delete a record and bump its zone's serial."""
    found = RECORD.fetch(ctx.db, args.record_id)
    zone_of = found.zone
    rules.delete_record(ctx.db, found, ctx.agent)
    return {"deleted": {"record_id": args.record_id}, "zone_id": zone_of.id, "serial": zone_of.serial}


def _on_zone_delete(db: Any, target: Zone) -> Result:
    return {"deleted_records": len(target.records)}


records.add_delete(
    domain,
    ZONE,
    example_id=4,
    check=_on_zone_delete,
    description="Delete a zone with all its records and history.",
    approval=2,  # removing a zone takes every name in it off the network: an operator decides
)

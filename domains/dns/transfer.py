"""Zone files in and out: export writes what is stored; import reads a file and stores it as
a new zone, or replaces the records of an existing one, after the same checks as any write."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.dns import inputs, rules, validation, zonefile
from domains.dns.entities import RECORD_FIELDS, ZONE
from domains.dns.entities import zone as render_zone
from domains.dns.inputs import MAX_TTL, MIN_TTL, ZoneImport
from domains.dns.tables import Record, Zone
from facade.kit import CallContext, Conflict, InvalidRequest, Toolset

tools = Toolset()


def export(zone: Zone) -> dict[str, Any]:
    text = zonefile.export(zone, list(zone.records))
    return {"zone": zone.name, "serial": zone.serial, "records": len(zone.records), "text": text}


def _checked(parsed: zonefile.Parsed) -> list[dict[str, Any]]:
    """Every record of the file, normalised; the first bad one refuses the whole import."""
    zone = Zone(name=parsed.name)  # transient: the rules read only its name
    clean = []
    for values in parsed.records:
        where = f"{values['name']} {values['type']}"
        if values["ttl"] is not None and not MIN_TTL <= values["ttl"] <= MAX_TTL:
            raise InvalidRequest(
                f"the record {where} has TTL {values['ttl']}, outside {MIN_TTL}-{MAX_TTL} seconds; "
                "change it and import again"
            )
        try:
            clean.append(rules.normalise(zone, values))
        except InvalidRequest as exc:
            raise InvalidRequest(f"the record {where} is refused: {exc.args[0]}") from None
    return clean


def _soa_checked(soa: dict[str, Any]) -> dict[str, Any]:
    if not MIN_TTL <= soa["ttl"] <= MAX_TTL:
        raise InvalidRequest(
            f"the zone's TTL (that of its SOA record) is {soa['ttl']}, outside {MIN_TTL}-{MAX_TTL} seconds; "
            "change $TTL and import again"
        )
    if "@" not in soa["admin_email"]:
        raise InvalidRequest("the SOA's responsible person is not a mailbox; write it as hostmaster.example.com.")
    return soa


def import_zone(db: Session, args: ZoneImport, agent: str) -> dict[str, Any]:
    parsed = zonefile.parse(args.text, args.name)
    soa = _soa_checked(parsed.soa)
    clean = _checked(parsed)  # before anything changes: a refused import leaves the zone as it was
    existing = db.scalar(select(Zone).where(Zone.name == parsed.name))
    if existing is not None and not args.replace:
        raise Conflict(
            f"zone {existing.id} is already named {parsed.name}; pass replace=true to replace its records, "
            "or import under another name"
        )
    if existing is None:
        zone = Zone(name=parsed.name, notes="", **soa)
        db.add(zone)
        replaced = 0
    else:
        zone = existing
        replaced = len(zone.records)
        file_serial = soa.pop("serial")
        for field, value in soa.items():
            setattr(zone, field, value)
        # The serial only moves forward, or secondaries would ignore the new content.
        rules.bump(zone)
        zone.serial = max(zone.serial, file_serial)
        zone.records.clear()
    db.flush()
    zone.records.extend(Record(**{f: values[f] for f in RECORD_FIELDS}) for values in clean)
    db.flush()
    rules.log(db, zone, "import", agent, after={"records": len(clean), "replaced": replaced})
    db.flush()
    by_type: dict[str, int] = {}
    for values in clean:
        by_type[values["type"]] = by_type.get(values["type"], 0) + 1
    return {
        "zone": render_zone(zone),
        "created": existing is None,
        "records_imported": len(clean),
        "records_replaced": replaced,
        "by_type": by_type,
        "validation": validation.validate(zone, list(zone.records)),
    }


@tools.capability("zone_export", read_only=True, example={"zone_id": 1})
def zone_export(ctx: CallContext, args: inputs.ZoneRef) -> dict[str, Any]:
    """Export a zone as an RFC 1035 zone file."""
    return export(ZONE.fetch(ctx.db, args.zone_id))


IMPORT_EXAMPLE = """$ORIGIN static.example.org.
$TTL 3600
@       IN SOA ns1.example.com. hostmaster.example.org. ( 2026100501 7200 3600 1209600 300 )
@       IN NS  ns1.example.com.
@       IN NS  ns2.example.com.
@       IN A   203.0.113.80
cdn     IN CNAME static.example.org.
img 300 IN A   203.0.113.81
"""


@tools.capability("zone_import", example={"text": IMPORT_EXAMPLE})
def zone_import(ctx: CallContext, args: inputs.ZoneImport) -> dict[str, Any]:
    """Import an RFC 1035 zone file as a new zone, or as the records of an existing one."""
    return import_zone(ctx.db, args, ctx.agent)

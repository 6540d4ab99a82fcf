"""Records: adding, reading and changing the records of a zone; every change bumps the zone's
serial and is written to its history (rules.py)."""

from __future__ import annotations

from typing import Any

from domains.dns import inputs, rules
from domains.dns.entities import RECORD, RECORD_FIELDS, ZONE, record
from facade.kit import CallContext, InvalidRequest, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability(
    "record_create",
    example={"zone_id": 1, "name": "api", "type": "A", "value": "203.0.113.60", "ttl": 300},
)
def record_create(ctx: CallContext, args: inputs.RecordCreate) -> Result:
    """Add a record to a zone and bump its serial."""
    target = ZONE.fetch(ctx.db, args.zone_id)
    created = rules.new_record(ctx.db, target, args.model_dump(include=set(RECORD_FIELDS)), ctx.agent)
    return {"record": record(created), "serial": target.serial}


records.add_get(tools, RECORD, example_id=3)
records.add_list(
    tools,
    RECORD,
    inputs.RecordFilter,
    references={"zone_id": ZONE},
    description="List records, optionally filtered by zone, name or type.",
    example={"zone_id": 1, "type": "MX"},
)


@tools.capability(
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

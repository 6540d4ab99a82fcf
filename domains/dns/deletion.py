"""Deleting: a record (its zone's serial bumped, the deletion in the history), or a whole zone
with its records and history, which an operator approves."""

from __future__ import annotations

from typing import Any

from domains.dns import inputs, rules
from domains.dns.entities import RECORD, ZONE
from domains.dns.tables import Zone
from facade.kit import CallContext, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability("record_delete", destructive=True, idempotent=True, example={"record_id": 15})
def record_delete(ctx: CallContext, args: inputs.RecordRef) -> Result:
    """Delete a record and bump its zone's serial."""
    found = RECORD.fetch(ctx.db, args.record_id)
    zone_of = found.zone
    rules.delete_record(ctx.db, found, ctx.agent)
    return {"deleted": {"record_id": args.record_id}, "zone_id": zone_of.id, "serial": zone_of.serial}


def _on_zone_delete(db: Any, target: Zone) -> Result:
    return {"deleted_records": len(target.records)}


records.add_delete(
    tools,
    ZONE,
    example_id=4,
    check=_on_zone_delete,
    description="Delete a zone with all its records and history.",
    approval=2,  # removing a zone takes every name in it off the network: an operator decides
)

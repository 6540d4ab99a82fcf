"""The history of a zone: every change to it and its records, as rules.log wrote it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from domains.dns import inputs
from domains.dns.entities import ZONE, change
from domains.dns.tables import Change
from facade.kit import CallContext, Toolset

tools = Toolset()


@tools.capability("record_history", read_only=True, example={"zone_id": 1})
def record_history(ctx: CallContext, args: inputs.RecordHistory) -> dict[str, Any]:
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

"""Service definitions out and in: export every definition, import a list of them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from domains.services import rules, serialize
from domains.services.inputs import Nothing, ServiceImport
from domains.services.tables import Service
from facade.kit import CallContext, Toolset, each

Result = dict[str, Any]
tools = Toolset()


@tools.capability("service_export", read_only=True, example={})
def service_export(ctx: CallContext, args: Nothing) -> Result:
    """Export every service definition, in the form service_import reads."""
    services = ctx.db.scalars(select(Service).order_by(Service.id))
    definitions = [serialize.definition(s) for s in services]
    return {"services": definitions, "count": len(definitions)}


@tools.capability(
    "service_import",
    example={
        "services": [
            {
                "name": "docs-preview",
                "description": "Live preview of the handbook.",
                "command": "python3 -m http.server 8734 --bind 127.0.0.1",
                "working_dir": "docs",
                "port": 8734,
            },
            {"name": "heartbeat", "command": "sleep 300"},
        ]
    },
)
def service_import(ctx: CallContext, args: ServiceImport) -> Result:
    """Create (or update) service definitions from a list, reporting each one's result."""
    # Every check runs before an item is written, so a refused item writes nothing; a name listed
    # twice is reported twice (the second finds the first).
    return each(
        args.services,
        "name",
        lambda item: _import_one(ctx, item.model_dump(), args.replace_existing),
        key=lambda item: item.name,
        distinct=False,
    )


def _import_one(ctx: CallContext, values: Result, replace: bool) -> Result:
    existing = ctx.db.scalars(select(Service).where(func.lower(Service.name) == values["name"].lower())).first()
    if existing is None:
        rules.check_create(ctx.db, values)
        service = Service(**values)
        ctx.db.add(service)
        ctx.db.flush()
        return {"service_id": service.id, "action": "created"}
    if not replace:
        return {
            "service_id": existing.id,
            "action": "skipped",
            "reason": "exists; pass replace_existing=true to update",
        }
    changes = {k: v for k, v in values.items() if v != getattr(existing, k)}
    changes["log_file"] = values["log_file"] or existing.log_file
    rules.check_update(ctx.db, existing, changes)
    for field, value in changes.items():
        setattr(existing, field, value)
    ctx.db.flush()
    return {"service_id": existing.id, "action": "updated", "changed": sorted(changes)}

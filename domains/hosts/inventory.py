"""The inventory as data: the host entity (facade.kit.records builds its get/list/update/delete
from it) and the rules a host obeys — a unique name, a set of tags, history kept on delete."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, selectinload

from domains.hosts import inputs
from domains.hosts.inputs import HostFilter, HostItem
from domains.hosts.tables import Host, HostTag, Probe
from facade.kit import Conflict, Entity, Toolset, records, utcnow

tools = Toolset()
deletes = Toolset()  # listed last, after the reports


def render(host: Host) -> dict[str, Any]:
    return {
        "id": host.id,
        "name": host.name,
        "address": host.address,
        "role": host.role,
        "tags": sorted(t.tag for t in host.tags),
        "notes": host.notes,
        "ssh_port": host.ssh_port,
        "created_at": host.created_at.isoformat(),
        "updated_at": host.updated_at.isoformat(),
    }


HOST: Entity[Host] = Entity("hosts", "host", "hosts", Host, render, load=(selectinload(Host.tags),))


def name_free(db: Session, name: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(Host.id).where(Host.name == name, Host.id != except_id))
    if clash is not None:
        raise Conflict(f"host {clash} is already named {name!r}; choose another name or update host {clash}")


def set_tags(host: Host, tags: list[str]) -> None:
    """Make the host's tags exactly `tags`, keeping the rows of tags it already has (replacing
    them would insert the new rows before deleting the old and trip the unique constraint)."""
    wanted = list(dict.fromkeys(tags))
    for row in [t for t in host.tags if t.tag not in wanted]:
        host.tags.remove(row)
    have = {t.tag for t in host.tags}
    host.tags.extend(HostTag(tag=tag) for tag in wanted if tag not in have)


def new_host(db: Session, item: HostItem) -> Host:
    values = item.model_dump()
    check_create(db, values)
    host = Host(**values)
    db.add(host)
    db.flush()
    return host


def check_create(db: Session, values: dict[str, Any]) -> None:
    name_free(db, values["name"])
    values["tags"] = [HostTag(tag=tag) for tag in dict.fromkeys(values["tags"])]


def check_update(db: Session, host: Host, changes: dict[str, Any]) -> None:
    if "name" in changes:
        name_free(db, changes["name"], host.id)
    if "tags" in changes:
        set_tags(host, changes.pop("tags"))
        host.updated_at = utcnow()  # a tags-only change touches no column of the host row


def on_delete(db: Session, host: Host) -> dict[str, Any]:
    kept = db.scalar(select(func.count()).select_from(Probe).where(Probe.host_id == host.id)) or 0
    return {"probe_history_kept": kept}


def where(args: HostFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.tag is not None:
        conditions.append(Host.tags.any(HostTag.tag == args.tag))
    if args.name_contains:
        conditions.append(Host.name.contains(args.name_contains.lower(), autoescape=True))
    return conditions


records.add_create(
    tools,
    HOST,
    inputs.HostCreate,
    check=check_create,
    description="Add a host to the inventory.",
    example={
        "name": "backup-01",
        "address": "203.0.113.50",
        "role": "storage",
        "tags": ["prod", "backup"],
        "notes": "Nightly restic target.",
    },
)
records.add_get(tools, HOST, example_id=1)
records.add_list(
    tools,
    HOST,
    inputs.HostFilter,
    where=where,
    description="List hosts, optionally filtered by role, tag or name.",
    example={"tag": "prod"},
)
records.add_update(
    tools,
    HOST,
    inputs.HostUpdate,
    check=check_update,
    example={"host_id": 5, "tags": ["prod", "redis"], "notes": "Redis 7 for sessions and the page cache."},
)


records.add_delete(
    deletes,
    HOST,
    example_id=7,
    check=on_delete,
    description="Delete a host from the inventory; its probe history is kept.",
)

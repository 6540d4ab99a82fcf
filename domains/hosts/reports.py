"""What the probe history says — the probes themselves, and each host's uptime — and the
inventory moved in and out whole (export, import)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.orm import Session, selectinload

from domains.hosts import inputs
from domains.hosts.inputs import HostImport, ProbeHistory
from domains.hosts.inventory import HOST, check_update, new_host, render
from domains.hosts.tables import Host, HostTag, Probe
from facade.kit import CallContext, Toolset

Result = dict[str, Any]
tools = Toolset()

CSV_FIELDS = ("name", "address", "role", "tags", "ssh_port", "notes")


def _utc(moment: datetime | None) -> datetime | None:
    """A caller's datetime; one without a zone is taken as UTC."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _iso(moment: datetime | None) -> str | None:
    return _utc(moment).isoformat() if moment is not None else None  # type: ignore[union-attr]


def probe(p: Probe) -> Result:
    return {
        "id": p.id,
        "host_id": p.host_id,
        "kind": p.kind,
        "target": p.target,
        "port": p.port,
        "reachable": p.reachable,
        "status_code": p.status_code,
        "latency_ms": p.latency_ms,
        "error": p.error,
        "probed_at": _iso(p.probed_at),
    }


def history(db: Session, args: ProbeHistory) -> Result:
    if args.host_id is not None:
        HOST.fetch(db, args.host_id)  # a missing host is an error, not an empty history
    conditions: list[ColumnElement[bool]] = []
    if args.host_id is not None:
        conditions.append(Probe.host_id == args.host_id)
    if args.kind is not None:
        conditions.append(Probe.kind == args.kind)
    if args.reachable is not None:
        conditions.append(Probe.reachable.is_(args.reachable))
    if args.since is not None:
        conditions.append(Probe.probed_at >= _utc(args.since))
    total = db.scalar(select(func.count()).select_from(Probe).where(*conditions))
    rows = db.scalars(
        select(Probe)
        .where(*conditions)
        .order_by(Probe.probed_at.desc(), Probe.id.desc())
        .limit(args.limit)
        .offset(args.offset)
    )
    return {"probes": [probe(p) for p in rows], "total": total}


def uptime(db: Session, host_id: int | None, since: datetime | None) -> Result:
    """Per inventory host: how many probes reached it, and when it was last seen."""
    if host_id is not None:
        HOST.fetch(db, host_id)
    conditions: list[ColumnElement[bool]] = [Probe.host_id.is_not(None)]
    if host_id is not None:
        conditions.append(Probe.host_id == host_id)
    if since is not None:
        conditions.append(Probe.probed_at >= _utc(since))
    reached = case((Probe.reachable, 1), else_=0)
    rows = db.execute(
        select(
            Host.id,
            Host.name,
            func.count(Probe.id),
            func.sum(reached),
            func.avg(case((Probe.reachable, Probe.latency_ms))),
            func.min(Probe.probed_at),
            func.max(Probe.probed_at),
            func.max(case((Probe.reachable, Probe.probed_at))),
        )
        .join(Host, Host.id == Probe.host_id)
        .where(*conditions)
        .group_by(Host.id, Host.name)
        .order_by(Host.id)
    ).all()
    hosts = []
    for hid, name, probes, up, latency, first, last, last_up in rows:
        hosts.append(
            {
                "host_id": hid,
                "name": name,
                "probes": probes,
                "reachable": int(up or 0),
                "uptime_percent": round(100 * int(up or 0) / probes, 2),
                "avg_latency_ms": round(float(latency), 2) if latency is not None else None,
                "first_probe_at": _iso(first),
                "last_probe_at": _iso(last),
                "last_reachable_at": _iso(last_up),
            }
        )
    return {"since": _iso(since), "hosts": hosts}


def export(db: Session, fmt: str, role: str | None, tag: str | None) -> Result:
    query = select(Host).options(selectinload(Host.tags)).order_by(Host.id)
    if role is not None:
        query = query.where(Host.role == role)
    if tag is not None:
        query = query.where(Host.tags.any(HostTag.tag == tag))
    hosts = list(db.scalars(query))
    if fmt == "json":
        data: Any = [{k: render(h)[k] for k in CSV_FIELDS} for h in hosts]
    else:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_FIELDS)
        for h in hosts:
            writer.writerow([h.name, h.address, h.role, " ".join(t.tag for t in h.tags), h.ssh_port, h.notes])
        data = buffer.getvalue()
    return {"format": fmt, "count": len(hosts), "data": data}


def import_hosts(db: Session, args: HostImport) -> Result:
    """Create each host; one whose name exists is updated or skipped, and the result says which."""
    results: list[Result] = []
    for index, item in enumerate(args.hosts):
        existing = db.scalar(select(Host).where(Host.name == item.name))
        if existing is None:
            results.append({"index": index, "name": item.name, "action": "created", "host_id": new_host(db, item).id})
        elif args.update_existing:
            changes = item.model_dump()
            check_update(db, existing, changes)
            for field, value in changes.items():
                setattr(existing, field, value)
            db.flush()
            results.append({"index": index, "name": item.name, "action": "updated", "host_id": existing.id})
        else:
            results.append({"index": index, "name": item.name, "action": "skipped", "host_id": existing.id})
    counts = {a: sum(1 for r in results if r["action"] == a) for a in ("created", "updated", "skipped")}
    return {"results": results, **counts}


@tools.capability("probe_history", read_only=True, example={"host_id": 4})
def probe_history(ctx: CallContext, args: inputs.ProbeHistory) -> Result:
    """List past probe results, newest first."""
    return history(ctx.db, args)


@tools.capability("uptime_report", read_only=True, example={})
def uptime_report(ctx: CallContext, args: inputs.UptimeReport) -> Result:
    """Summarise each host's probe history as uptime and latency."""
    return uptime(ctx.db, args.host_id, args.since)


@tools.capability("host_export", read_only=True, example={"format": "csv", "tag": "prod"})
def host_export(ctx: CallContext, args: inputs.HostExport) -> Result:
    """Export the inventory as JSON or CSV."""
    return export(ctx.db, args.format, args.role, args.tag)


@tools.capability(
    "host_import",
    example={
        "hosts": [
            {"name": "web-03", "address": "203.0.113.12", "role": "web", "tags": ["prod", "eu-west"]},
            {"name": "cache-01", "address": "203.0.113.30", "role": "cache"},
        ]
    },
)
def host_import(ctx: CallContext, args: inputs.HostImport) -> Result:
    """Add many hosts at once, updating or skipping those whose name exists."""
    return import_hosts(ctx.db, args)

"""The services domain: service definitions in the database, run as real processes on this
machine, and its capabilities in registration order.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and sandbox and must succeed. Seeded ids: services 1 static-site (a loopback web server
on port 8701, never started by the walk, so that its port cannot clash), 2 heartbeat (`sleep
300`: the walk starts, restarts and stops it), 3 legacy-cron (disabled, deleted by the walk);
the walk's create makes service 4 and its import service 5. No capability needs a backend this
machine lacks. The machine-wide views (processes, ports) live in machine.py and come last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select

from domains.services import probes, processes, rules, runner, sandbox, serialize
from domains.services.inputs import (
    Nothing,
    ServiceArgs,
    ServiceDefinition,
    ServiceFilter,
    ServiceHistory,
    ServiceImport,
    ServiceLogs,
    ServiceUpdate,
    StatusReport,
)
from domains.services.seed import seed
from domains.services.settings import settings
from domains.services.tables import Service, ServiceEvent
from facade.kit import CallContext, Domain, Entity, contains_text, each, records

Result = dict[str, Any]

domain = Domain(
    "services",
    description="Services on this machine: definitions, processes, ports and health.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

SERVICE: Entity[Service] = Entity("services", "service", "services", Service, render=serialize.service)


def fetch_locked(ctx: CallContext, service_id: int) -> Service:
    """The service, row-locked for this call on PostgreSQL, so that two replicas cannot start or
    stop the same service at once (SQLite has no row locks; it serves a single server)."""
    found = ctx.db.get(Service, service_id, with_for_update=True)
    return found if found is not None else SERVICE.fetch(ctx.db, service_id)


def status_of(service: Service) -> Result:
    """The live state: the process (started by us, or found by its command), the port, the health."""
    proc = processes.owned(service)
    managed = proc is not None
    if proc is None:
        found = processes.running_command(rules.argv(service.command), sandbox.resolve(service.working_dir))
        proc = found[0] if found else None
    timeout = settings().probe_timeout
    state = "running" if managed else "unmanaged" if proc is not None else "stopped"
    result: Result = {
        "service": {"id": service.id, "name": service.name, "enabled": service.enabled},
        "state": state,
        "process": {**processes.summary(proc), "started_by_facade": managed} if proc is not None else None,
        "port": probes.tcp(service.port, timeout) if service.port is not None else None,
        "health": probes.http(service.health_url, timeout) if service.health_url else None,
    }
    if not managed and service.pid is not None:
        result["note"] = f"pid {service.pid}, which this domain started, has exited"
    return result


records.add_create(
    domain,
    SERVICE,
    ServiceDefinition,
    check=rules.check_create,
    description="Define a service: its command, folder, port, health URL and log file.",
    example={
        "name": "api-mock",
        "description": "Mock of the partner API for integration tests.",
        "command": "python3 -m http.server 8733 --bind 127.0.0.1",
        "working_dir": "api-mock",
        "port": 8733,
        "health_url": "http://127.0.0.1:8733/",
    },
)
records.add_get(domain, SERVICE, example_id=1)


def _services_where(args: ServiceFilter) -> list[ColumnElement[bool]]:
    if not args.search:
        return []
    return [or_(contains_text(Service.name, args.search), contains_text(Service.command, args.search))]


records.add_list(domain, SERVICE, ServiceFilter, example={}, where=_services_where)
records.add_update(
    domain,
    SERVICE,
    ServiceUpdate,
    check=rules.check_update,
    example={"service_id": 2, "description": "Stand-in for the queue worker; restarts nightly."},
)


# Starting and stopping is this domain's everyday change of state, so both are core.
@domain.capability("service_start", tier="core", idempotent=True, example={"service_id": 2})
def service_start(ctx: CallContext, args: ServiceArgs) -> Result:
    """Start a service as a detached process logging to its log file."""
    service = fetch_locked(ctx, args.service_id)
    return {"service": {"id": service.id, "name": service.name}, **runner.start(ctx.db, service)}


@domain.capability("service_status", read_only=True, example={"service_id": 2})
def service_status(ctx: CallContext, args: ServiceArgs) -> Result:
    """Check a service on the machine: its process, its port and its health URL."""
    return status_of(SERVICE.fetch(ctx.db, args.service_id))


# Reading logs is the first step of any diagnosis, so it is core although "logs" is no CRUD verb.
@domain.capability("service_logs", tier="core", read_only=True, example={"service_id": 2, "lines": 20})
def service_logs(ctx: CallContext, args: ServiceLogs) -> Result:
    """Read the last lines of a service's log file."""
    service = SERVICE.fetch(ctx.db, args.service_id)
    return {"service": {"id": service.id, "name": service.name}, **runner.tail(service, args.lines)}


@domain.capability("service_restart", example={"service_id": 2})
def service_restart(ctx: CallContext, args: ServiceArgs) -> Result:
    """Stop a service if this domain runs it, then start it again."""
    service = fetch_locked(ctx, args.service_id)
    stopped = runner.stop(ctx.db, service)
    started = runner.start(ctx.db, service)
    return {"service": {"id": service.id, "name": service.name}, "stopped_pid": stopped.get("pid"), **started}


# Core for the reason given at service_start.
@domain.capability("service_stop", tier="core", idempotent=True, example={"service_id": 2})
def service_stop(ctx: CallContext, args: ServiceArgs) -> Result:
    """Stop a service this domain started (SIGTERM, then SIGKILL after the stop timeout)."""
    service = fetch_locked(ctx, args.service_id)
    return {"service": {"id": service.id, "name": service.name}, **runner.stop(ctx.db, service)}


@domain.capability("service_history", read_only=True, example={"service_id": 2})
def service_history(ctx: CallContext, args: ServiceHistory) -> Result:
    """List a service's starts and stops, newest first."""
    service = SERVICE.fetch(ctx.db, args.service_id)
    where = ServiceEvent.service_id == service.id
    total = ctx.db.scalar(select(func.count()).select_from(ServiceEvent).where(where))
    rows = ctx.db.scalars(
        select(ServiceEvent).where(where).order_by(ServiceEvent.id.desc()).limit(args.limit).offset(args.offset)
    )
    return {
        "service": {"id": service.id, "name": service.name},
        "events": [serialize.event(e) for e in rows],
        "total": total,
    }


@domain.capability("status_report", read_only=True, example={})
def status_report(ctx: CallContext, args: StatusReport) -> Result:
    """Check every service at once and count how many are running, stopped or unhealthy."""
    query = select(Service).order_by(Service.id)
    if args.enabled_only:
        query = query.where(Service.enabled.is_(True))
    services = list(ctx.db.scalars(query))
    statuses = [status_of(s) for s in services[args.offset : args.offset + args.limit]]
    unhealthy = [s["service"]["name"] for s in statuses if s["health"] is not None and not s["health"].get("healthy")]
    counts = {state: sum(s["state"] == state for s in statuses) for state in ("running", "unmanaged", "stopped")}
    return {"services": statuses, "total": len(services), "counts": counts, "unhealthy": unhealthy}


@domain.capability("service_export", read_only=True, example={})
def service_export(ctx: CallContext, args: Nothing) -> Result:
    """Export every service definition, in the form service_import reads."""
    services = ctx.db.scalars(select(Service).order_by(Service.id))
    definitions = [serialize.definition(s) for s in services]
    return {"services": definitions, "count": len(definitions)}


@domain.capability(
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


records.add_delete(
    domain, SERVICE, example_id=3, check=rules.check_delete, description="Delete a stopped service's definition."
)

# The package's __init__ imports this module first, so machine.py always finds `domain` bound.
from domains.services import machine  # noqa: E402,F401,I001

__all__ = ["domain"]

"""Running services: starting, stopping and restarting the processes of their definitions,
their live status, logs and history."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from domains.services import probes, processes, rules, runner, sandbox, serialize
from domains.services.entities import SERVICE
from domains.services.inputs import ServiceArgs, ServiceHistory, ServiceLogs, StatusReport
from domains.services.settings import settings
from domains.services.tables import Service, ServiceEvent
from facade.kit import CallContext, Toolset

Result = dict[str, Any]
tools = Toolset()


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


# Starting and stopping is this domain's everyday change of state, so both are core.
@tools.capability("service_start", tier="core", idempotent=True, example={"service_id": 2})
def service_start(ctx: CallContext, args: ServiceArgs) -> Result:
    """Start a service as a detached process logging to its log file."""
    service = fetch_locked(ctx, args.service_id)
    return {"service": {"id": service.id, "name": service.name}, **runner.start(ctx.db, service)}


@tools.capability("service_status", read_only=True, example={"service_id": 2})
def service_status(ctx: CallContext, args: ServiceArgs) -> Result:
    """Check a service on the machine: its process, its port and its health URL."""
    return status_of(SERVICE.fetch(ctx.db, args.service_id))


# Reading logs is the first step of any diagnosis, so it is core although "logs" is no CRUD verb.
@tools.capability("service_logs", tier="core", read_only=True, example={"service_id": 2, "lines": 20})
def service_logs(ctx: CallContext, args: ServiceLogs) -> Result:
    """Read the last lines of a service's log file."""
    service = SERVICE.fetch(ctx.db, args.service_id)
    return {"service": {"id": service.id, "name": service.name}, **runner.tail(service, args.lines)}


@tools.capability("service_restart", example={"service_id": 2})
def service_restart(ctx: CallContext, args: ServiceArgs) -> Result:
    """Stop a service if this domain runs it, then start it again."""
    service = fetch_locked(ctx, args.service_id)
    stopped = runner.stop(ctx.db, service)
    started = runner.start(ctx.db, service)
    return {"service": {"id": service.id, "name": service.name}, "stopped_pid": stopped.get("pid"), **started}


# Core for the reason given at service_start.
@tools.capability("service_stop", tier="core", idempotent=True, example={"service_id": 2})
def service_stop(ctx: CallContext, args: ServiceArgs) -> Result:
    """Stop a service this domain started (SIGTERM, then SIGKILL after the stop timeout)."""
    service = fetch_locked(ctx, args.service_id)
    return {"service": {"id": service.id, "name": service.name}, **runner.stop(ctx.db, service)}


@tools.capability("service_history", read_only=True, example={"service_id": 2})
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


@tools.capability("status_report", read_only=True, example={})
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

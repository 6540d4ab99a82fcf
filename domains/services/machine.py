"""The machine as a whole, read-only: processes, their details, and listening ports, each marked
with the service it belongs to when this domain knows one."""

from __future__ import annotations

from typing import Any

import psutil
from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.services import processes
from domains.services.inputs import PortFilter, ProcessArgs, ProcessFilter
from domains.services.tables import Service
from facade.kit import CallContext, NotFound, Toolset

Result = dict[str, Any]
tools = Toolset()


def _services_by_pid(db: Session) -> dict[int, str]:
    """The recorded pid of each service (a stale pid is harmless: it only labels a row)."""
    rows = db.execute(select(Service.pid, Service.name).where(Service.pid.is_not(None)))
    return {pid: name for pid, name in rows if pid is not None}


@tools.capability("process_list", read_only=True, example={"limit": 20})
def process_list(ctx: CallContext, args: ProcessFilter) -> Result:
    """List the processes running on this machine, optionally by name or user."""
    owners = _services_by_pid(ctx.db)
    rows: list[Result] = []
    for proc in processes.processes():
        row = processes.summary(proc)
        if args.name and args.name.lower() not in (row["name"] or "").lower():
            continue
        if args.user and row["user"] != args.user:
            continue
        rows.append({**row, "service": owners.get(proc.pid)})
    rows.sort(key=lambda r: r["pid"])
    return {"processes": rows[args.offset : args.offset + args.limit], "total": len(rows)}


@tools.capability("process_inspect", read_only=True, example={"pid": 1})
def process_inspect(ctx: CallContext, args: ProcessArgs) -> Result:
    """Show one process in detail: command, folder, parent, children, CPU, memory, files, sockets."""
    try:
        proc = psutil.Process(args.pid)
        found = processes.details(proc)
    except psutil.NoSuchProcess:
        raise NotFound(f"process {args.pid} does not exist; list processes with services.process_list") from None
    return {"process": {**found, "service": _services_by_pid(ctx.db).get(args.pid)}}


# Full although a list: a machine-wide socket scan is for diagnosis, and each service's own port
# is already checked by services.service_status.
@tools.capability("port_list", tier="full", read_only=True, example={})
def port_list(ctx: CallContext, args: PortFilter) -> Result:
    """List the TCP ports listening on this machine and the processes behind them."""
    found, complete = processes.listening()
    by_port = {
        port: name for port, name in ctx.db.execute(select(Service.port, Service.name).where(Service.port.is_not(None)))
    }
    rows = [
        {**row, "process": processes.name_of(row["pid"]), "service": by_port.get(row["port"])}
        for row in found
        if args.port is None or row["port"] == args.port
    ]
    return {"ports": rows[args.offset : args.offset + args.limit], "total": len(rows), "complete": complete}

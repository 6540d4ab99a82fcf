"""The hosts domain and its capabilities, in registration order.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and must succeed, so the delete comes last and targets a host the seed made for it.
Seeded ids: hosts 1-7 (1 is `localhost` at 127.0.0.1, the only host examples probe; 7 is the
decommissioned bastion the delete example removes), probes 1-13; ids are never reused.
No capability needs a backend this machine lacks: a probe that reaches nothing (no server on
the port, no network) succeeds and says so in its result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from domains.hosts import inputs, inventory, machine, probes, reports
from domains.hosts.inventory import HOST
from domains.hosts.seed import seed
from facade.kit import CallContext, Domain, records

Result = dict[str, Any]

domain = Domain(
    "hosts",
    description="A host inventory, network probes and facts about the local machine.",
    default_mode="core",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# Inventory

records.add_create(
    domain,
    HOST,
    inputs.HostCreate,
    check=inventory.check_create,
    description="Add a host to the inventory.",
    example={
        "name": "backup-01",
        "address": "203.0.113.50",
        "role": "storage",
        "tags": ["prod", "backup"],
        "notes": "Nightly restic target.",
    },
)
records.add_get(domain, HOST, example_id=1)
records.add_list(
    domain,
    HOST,
    inputs.HostFilter,
    where=inventory.where,
    description="List hosts, optionally filtered by role, tag or name.",
    example={"tag": "prod"},
)
records.add_update(
    domain,
    HOST,
    inputs.HostUpdate,
    check=inventory.check_update,
    example={"host_id": 5, "tags": ["prod", "redis"], "notes": "Redis 7 for sessions and the page cache."},
)

# Probes


# A probe is this domain's essential read (is it up?); tier_for does not know the verb.
@domain.capability("tcp_probe", tier="core", example={"host_id": 1, "port": 5432, "timeout": 1})
def tcp_probe(ctx: CallContext, args: inputs.TcpProbe) -> Result:
    """Check whether a TCP port of a host accepts connections."""
    return probes.probe_tcp(ctx.db, args, args.port, args.timeout)


# As tcp_probe: the essential read of a web service, whatever tier_for makes of the verb.
@domain.capability("http_probe", tier="core", example={"url": "http://127.0.0.1:8765/healthz", "timeout": 2})
def http_probe(ctx: CallContext, args: inputs.HttpProbe) -> Result:
    """GET a URL once and report its status, latency and main headers."""
    return probes.probe_http(ctx.db, args.url, args.timeout, args.verify_tls)


# The local machine


@domain.capability("system_status", read_only=True, example={})
def system_status(ctx: CallContext, args: inputs.NoArgs) -> Result:
    """Report this machine's OS, kernel, CPUs, load average and uptime."""
    return machine.system()


@domain.capability("memory_status", read_only=True, example={})
def memory_status(ctx: CallContext, args: inputs.NoArgs) -> Result:
    """Report this machine's memory and swap use."""
    return machine.memory()


@domain.capability("disk_list", read_only=True, example={})
def disk_list(ctx: CallContext, args: inputs.LocalPage) -> Result:
    """List this machine's mounted disks and how full they are."""
    return machine.disks(args.limit, args.offset)


# Full tier: scans, raw machine detail, history, reports, export and import.


@domain.capability("port_scan", example={"host_id": 1, "ports": [22, 80, 443, 5432, 8765], "timeout": 0.5})
def port_scan(ctx: CallContext, args: inputs.PortScan) -> Result:
    """Check which of a short list of TCP ports of a host are open."""
    return probes.probe_ports(ctx.db, args, args.ports, args.timeout)


@domain.capability("network_interfaces", read_only=True, example={})
def network_interfaces(ctx: CallContext, args: inputs.LocalPage) -> Result:
    """List this machine's network interfaces with their addresses and traffic counters."""
    return machine.interfaces(args.limit, args.offset)


@domain.capability("process_top", read_only=True, example={"sort_by": "memory", "limit": 5})
def process_top(ctx: CallContext, args: inputs.ProcessTop) -> Result:
    """List this machine's busiest processes by CPU or memory."""
    return machine.top_processes(args.sort_by, args.limit)


@domain.capability("probe_history", read_only=True, example={"host_id": 4})
def probe_history(ctx: CallContext, args: inputs.ProbeHistory) -> Result:
    """List past probe results, newest first."""
    return reports.history(ctx.db, args)


@domain.capability("uptime_report", read_only=True, example={})
def uptime_report(ctx: CallContext, args: inputs.UptimeReport) -> Result:
    """Summarise each host's probe history as uptime and latency."""
    return reports.uptime(ctx.db, args.host_id, args.since)


@domain.capability("host_export", read_only=True, example={"format": "csv", "tag": "prod"})
def host_export(ctx: CallContext, args: inputs.HostExport) -> Result:
    """Export the inventory as JSON or CSV."""
    return reports.export(ctx.db, args.format, args.role, args.tag)


@domain.capability(
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
    return reports.import_hosts(ctx.db, args)


records.add_delete(
    domain,
    HOST,
    example_id=7,
    check=inventory.on_delete,
    description="Delete a host from the inventory; its probe history is kept.",
)

"""Finding what is wrong in a zone as a whole: what depends on several records (a CNAME
alone at its name, a target that exists, NS records present)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from domains.dns import inputs, names
from domains.dns.entities import ADDRESS_TYPES, ZONE
from domains.dns.tables import Record, Zone
from facade.kit import CallContext, Toolset

Finding = dict[str, Any]
tools = Toolset()


def _finding(severity: str, problem: str, records: list[Record], fix: str) -> Finding:
    return {"severity": severity, "problem": problem, "record_ids": [r.id for r in records], "fix": fix}


def validate(zone: Zone, records: list[Record]) -> dict[str, Any]:
    """Check the zone as a whole: what each record allows on its own is checked when it is
    written; what depends on the others (a target that exists, a CNAME alone) is checked here."""
    by_name: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_name[names.fqdn(r.name, zone.name)].append(r)
    findings: list[Finding] = []
    if not any(r.type == "NS" and r.name == names.APEX for r in records):
        findings.append(
            _finding(
                "error",
                f"{zone.name} has no NS record at its apex",
                [],
                "add one with dns.record_create name='@' type='NS'",
            )
        )
    for where, group in sorted(by_name.items()):
        cnames = [r for r in group if r.type == "CNAME"]
        if cnames and len(group) > 1:
            findings.append(
                _finding(
                    "error", f"{where} has a CNAME and other records", group, "keep either the CNAME or the others"
                )
            )
        rrsets: dict[str, set[int | None]] = defaultdict(set)
        for r in group:
            rrsets[r.type].add(r.ttl)
        for kind, ttls in sorted(rrsets.items()):
            if len(ttls) > 1:
                same = [r for r in group if r.type == kind]
                findings.append(
                    _finding(
                        "warning",
                        f"the {kind} records of {where} have different TTLs",
                        same,
                        "give them one TTL (RFC 2181 section 5.2)",
                    )
                )
    for r in records:
        if r.type not in ("CNAME", "MX", "NS", "SRV") or r.value == "." or not names.within(r.value, zone.name):
            continue
        at_target = by_name.get(r.value, [])
        if not at_target:
            findings.append(
                _finding(
                    "error",
                    f"{r.type} record {r.id} points at {r.value}, which has no records in this zone",
                    [r],
                    f"add an A or AAAA record for {r.value}, or change the {r.type} target",
                )
            )
        elif r.type != "CNAME" and not any(t.type in ADDRESS_TYPES for t in at_target):
            is_alias = any(t.type == "CNAME" for t in at_target)
            problem = "is an alias (CNAME)" if is_alias else "has no A or AAAA record"
            findings.append(
                _finding(
                    "error",
                    f"{r.type} record {r.id} points at {r.value}, which {problem}",
                    [r],
                    f"point the {r.type} at a name with A/AAAA records (RFC 2181 section 10.3)",
                )
            )
    errors = sum(1 for f in findings if f["severity"] == "error")
    return {
        "zone": zone.name,
        "serial": zone.serial,
        "valid": errors == 0,
        "errors": errors,
        "warnings": len(findings) - errors,
        "findings": findings,
    }


@tools.capability("zone_validate", read_only=True, example={"zone_id": 1})
def zone_validate(ctx: CallContext, args: inputs.ZoneRef) -> dict[str, Any]:
    """Check a zone for CNAME conflicts, dangling targets and missing NS records."""
    found = ZONE.fetch(ctx.db, args.zone_id)
    return validate(found, list(found.records))

"""Records as JSON-friendly dicts: ids, plain strings, ISO timestamps."""

from __future__ import annotations

from typing import Any

from domains.services.tables import Service, ServiceEvent
from facade.kit import iso

# The fields of a definition: what export writes and import reads back.
DEFINITION = ("name", "description", "command", "working_dir", "port", "health_url", "log_file", "enabled")


def definition(s: Service) -> dict[str, Any]:
    return {field: getattr(s, field) for field in DEFINITION}


def service(s: Service) -> dict[str, Any]:
    return {
        "id": s.id,
        **definition(s),
        # The process this domain last started; services.service_status checks it is still alive.
        "recorded_pid": s.pid,
        "started_at": iso(s.started_at) if s.pid is not None else None,
        "created_at": iso(s.created_at),
        "updated_at": iso(s.updated_at),
    }


def event(e: ServiceEvent) -> dict[str, Any]:
    return {
        "id": e.id,
        "service_id": e.service_id,
        "kind": e.kind,
        "pid": e.pid,
        "exit_code": e.exit_code,
        "detail": e.detail,
        "at": iso(e.at),
    }

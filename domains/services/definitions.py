"""Service definitions: what to run (command, folder, port, health URL, log file), kept in the
database whether or not the service is running."""

from __future__ import annotations

from sqlalchemy import ColumnElement, or_

from domains.services import rules
from domains.services.entities import SERVICE
from domains.services.inputs import ServiceDefinition, ServiceFilter, ServiceUpdate
from domains.services.tables import Service
from facade.kit import Toolset, contains_text, records

tools = Toolset()
deletes = Toolset()  # listed after the export and import


records.add_create(
    tools,
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
records.add_get(tools, SERVICE, example_id=1)


def _services_where(args: ServiceFilter) -> list[ColumnElement[bool]]:
    if not args.search:
        return []
    return [or_(contains_text(Service.name, args.search), contains_text(Service.command, args.search))]


records.add_list(tools, SERVICE, ServiceFilter, example={}, where=_services_where)
records.add_update(
    tools,
    SERVICE,
    ServiceUpdate,
    check=rules.check_update,
    example={"service_id": 2, "description": "Stand-in for the queue worker; restarts nightly."},
)


records.add_delete(
    deletes, SERVICE, example_id=3, check=rules.check_delete, description="Delete a stopped service's definition."
)

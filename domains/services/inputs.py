"""The arguments of every services capability. Field names say what they hold; a description is
given only where the name alone does not."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from facade.kit import Id, Input, Page

Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,63}$")]
Command = Annotated[
    str, Field(min_length=1, max_length=1000, description="Program and arguments, split like a shell (no pipes).")
]
Folder = Annotated[str, Field(max_length=255, description="Relative to the services root.")]
Port = Annotated[int, Field(ge=1, le=65535)]
HealthUrl = Annotated[str, Field(max_length=500, description="http:// URL on 127.0.0.1, localhost or [::1].")]
Description = Annotated[str, Field(max_length=2000)]


class ServiceDefinition(Input):
    name: Name
    command: Command
    description: Description = ""
    working_dir: Folder = ""
    port: Port | None = None
    health_url: HealthUrl | None = None
    log_file: Folder | None = Field(None, description="Relative to the services root; default logs/<name>.log.")
    enabled: bool = True


class ServiceUpdate(Input):
    service_id: Id
    name: Name | None = None
    command: Command | None = None
    description: Description | None = None
    working_dir: Folder | None = None
    port: Port | None = None
    health_url: HealthUrl | None = None
    log_file: Folder | None = None
    enabled: bool | None = None


class ServiceFilter(Page):
    enabled: bool | None = None
    search: str | None = Field(None, min_length=1, max_length=64, description="Part of a name or command.")


class ServiceArgs(Input):
    service_id: Id


class ServiceLogs(Input):
    service_id: Id
    lines: int = Field(50, ge=1, le=1000, description="Lines from the end.")


class ServiceHistory(Page):
    service_id: Id


class StatusReport(Page):
    enabled_only: bool = True


class ServiceImport(Input):
    services: list[ServiceDefinition] = Field(min_length=1, max_length=100)
    replace_existing: bool = Field(False, description="Update services whose name exists instead of skipping them.")


class Nothing(Input):
    pass


class ProcessFilter(Page):
    name: str | None = Field(None, min_length=1, max_length=64, description="Part of the process name.")
    user: str | None = Field(None, max_length=64)


class ProcessArgs(Input):
    pid: int = Field(ge=1)


class PortFilter(Page):
    port: Port | None = None

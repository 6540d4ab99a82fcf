"""The arguments of every hosts capability. Field names say what they hold; a description is
given only where the name alone does not."""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, model_validator

from domains.hosts.tables import ProbeKind, Role
from facade.kit import Id, Input, Page

_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")


def address(value: str) -> str:
    """An IP address (in its canonical form) or a DNS name (lowercased, no trailing dot)."""
    value = value.strip()
    try:
        return str(ipaddress.ip_address(value.strip("[]")))
    except ValueError:
        pass
    name = value.lower().rstrip(".")
    labels = name.split(".")
    # An all-digit last label is a mistyped IP address (999.1.1.1), never a real top-level domain.
    if not name or len(name) > 253 or not all(_LABEL.match(x) for x in labels) or labels[-1].isdigit():
        raise ValueError(
            f"{value!r} is neither an IP address nor a DNS name; give e.g. 203.0.113.10 or db-01.example.com"
        )
    return name


Address = Annotated[str, Field(min_length=1, max_length=253), AfterValidator(address)]
HostName = Annotated[
    str, Field(min_length=1, max_length=253, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$"), AfterValidator(str.lower)
]
Tag = Annotated[
    str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"), AfterValidator(str.lower)
]
Tags = Annotated[list[Tag], Field(max_length=10)]
Port = Annotated[int, Field(ge=1, le=65535)]
Notes = Annotated[str, Field(max_length=2000)]
Timeout = Annotated[float, Field(gt=0, le=5, description="Seconds.")]


class Args(Input):
    """Arguments with surrounding whitespace stripped, so that "  " is no name."""

    model_config = ConfigDict(str_strip_whitespace=True)


# Inventory


class HostItem(Args):
    name: HostName
    address: Address
    role: Role = "other"
    tags: Tags = Field(default_factory=list)
    notes: Notes = ""
    ssh_port: Port = 22


class HostCreate(HostItem):
    pass


class HostUpdate(Args):
    host_id: Id
    name: HostName | None = None
    address: Address | None = None
    role: Role | None = None
    tags: Tags | None = Field(None, description="Replaces all tags.")
    notes: Notes | None = None
    ssh_port: Port | None = None


class HostFilter(Page):
    role: Role | None = None
    tag: Tag | None = None
    name_contains: str | None = Field(None, max_length=100)


class HostExport(Args):
    format: Literal["json", "csv"] = "json"
    role: Role | None = None
    tag: Tag | None = None


class HostImport(Args):
    hosts: list[HostItem] = Field(min_length=1, max_length=200)
    update_existing: bool = Field(False, description="Update hosts whose name exists instead of skipping them.")


# Probes


class Target(Args):
    """A probe's target: an inventory host, or an address not in the inventory."""

    host_id: Id | None = Field(None, description="An inventory host; or give address.")
    address: Address | None = None

    @model_validator(mode="after")
    def _one_target(self) -> Target:
        if (self.host_id is None) == (self.address is None):
            raise ValueError("give exactly one of host_id or address")
        return self


class TcpProbe(Target):
    port: Port | None = Field(None, description="Default: the host's ssh_port (22 for an address).")
    timeout: Timeout = 2.0


class HttpProbe(Args):
    url: str = Field(min_length=8, max_length=2000, pattern=r"^[hH][tT][tT][pP][sS]?://")
    timeout: Timeout = 3.0
    verify_tls: bool = True


# Common service ports: SSH, SMTP, DNS, HTTP, HTTPS, MySQL, PostgreSQL, Redis, HTTP alt.
DEFAULT_SCAN_PORTS: list[int] = [22, 25, 53, 80, 443, 3306, 5432, 6379, 8080]


class PortScan(Target):
    ports: list[Port] = Field(default_factory=lambda: list(DEFAULT_SCAN_PORTS), min_length=1, max_length=32)
    timeout: float = Field(1.0, gt=0, le=2, description="Seconds per port.")


# History and reports


class ProbeHistory(Page):
    host_id: Id | None = None
    kind: ProbeKind | None = None
    reachable: bool | None = None
    since: datetime | None = None


class UptimeReport(Args):
    host_id: Id | None = Field(None, description="Default: every host with probes.")
    since: datetime | None = Field(None, description="Default: all history.")


# The local machine


class NoArgs(Args):
    pass


class LocalPage(Page):
    pass


class ProcessTop(Args):
    sort_by: Literal["cpu", "memory"] = "cpu"
    limit: int = Field(10, ge=1, le=50)

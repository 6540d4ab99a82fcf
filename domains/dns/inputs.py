"""The arguments of every dns capability. Field names say what they hold; a description is
given only where the name alone does not."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field

from domains.dns import names
from domains.dns.tables import RecordType
from facade.kit import Id, Input, Page

# TTL bounds: a minute keeps resolvers from hammering the servers, a week is the longest any
# major resolver caches (longer values are capped by them anyway).
MIN_TTL, MAX_TTL = 60, 604_800

ZoneName = Annotated[str, Field(min_length=1, max_length=254), AfterValidator(names.zone_name)]
HostName = Annotated[
    str,
    Field(min_length=1, max_length=254, description="Fully qualified, e.g. ns1.example.com."),
    AfterValidator(names.absolute),
]
Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
Ttl = Annotated[int, Field(ge=MIN_TTL, le=MAX_TTL)]
Timer = Annotated[int, Field(ge=60, le=2_419_200)]
Negative = Annotated[int, Field(ge=0, le=MAX_TTL, description="Negative-caching TTL in seconds.")]
Short = Annotated[int, Field(ge=0, le=65535)]
Owner = Annotated[
    str, Field(min_length=1, max_length=254, description="Relative to the zone: 'www', '@' for the apex.")
]
Value = Annotated[
    str,
    Field(
        min_length=1,
        max_length=2000,
        description="An address for A/AAAA, the text for TXT, else a fully qualified host name.",
    ),
]
Notes = Annotated[str, Field(max_length=2000)]


class Args(Input):
    """Arguments with surrounding whitespace stripped, so that "  " is no name."""

    model_config = ConfigDict(str_strip_whitespace=True)


# Zones


class ZoneCreate(Args):
    name: ZoneName
    primary_ns: HostName
    admin_email: Email
    nameservers: list[HostName] = Field(
        default_factory=list, max_length=13, description="NS records to add at the apex; default: primary_ns."
    )
    ttl: Ttl = 3600
    refresh: Timer = 7200
    retry: Timer = 3600
    expire: Timer = 1_209_600
    minimum: Negative = 300
    notes: Notes = ""


class ZoneRef(Args):
    zone_id: Id


class ZoneUpdate(Args):
    zone_id: Id
    primary_ns: HostName | None = None
    admin_email: Email | None = None
    ttl: Ttl | None = None
    refresh: Timer | None = None
    retry: Timer | None = None
    expire: Timer | None = None
    minimum: Negative | None = None
    notes: Notes | None = None


class ZoneFilter(Page):
    name_contains: str | None = Field(None, max_length=100)
    kind: Literal["forward", "reverse"] | None = None


class ZoneImport(Args):
    text: str = Field(min_length=1, max_length=500_000, description="The zone file (RFC 1035 master file format).")
    name: ZoneName | None = Field(None, description="The zone's name; default: the file's $ORIGIN.")
    replace: bool = Field(False, description="Replace the records of an existing zone of that name.")


class ReverseGenerate(Args):
    zone_id: Id = Field(description="The forward zone whose A and AAAA records get PTR records.")
    dry_run: bool = False


class ZoneCompare(Args):
    zone_id: Id
    max_names: int = Field(50, ge=1, le=200)


# Records


class RecordCreate(Args):
    zone_id: Id
    name: Owner
    type: RecordType
    value: Value
    ttl: Ttl | None = Field(None, description="Seconds; default: the zone's TTL.")
    priority: Short | None = Field(None, description="MX preference or SRV priority.")
    weight: Short | None = Field(None, description="SRV only.")
    port: Short | None = Field(None, description="SRV only.")


class RecordUpdate(Args):
    record_id: Id
    name: Owner | None = None
    type: RecordType | None = None
    value: Value | None = None
    ttl: Ttl | None = Field(None, description="null: use the zone's TTL.")
    priority: Short | None = None
    weight: Short | None = None
    port: Short | None = None


class RecordFilter(Page):
    zone_id: Id | None = None
    name: str | None = Field(None, max_length=254, description="Relative to the zone: 'www', '@' for the apex.")
    type: RecordType | None = None


class RecordHistory(Page):
    zone_id: Id
    record_id: Id | None = None


# The system resolver


class Resolve(Args):
    name: str = Field(
        min_length=1,
        max_length=253,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="A host name, or an IP address for a reverse lookup.",
    )
    family: Literal["any", "ipv4", "ipv6"] = "any"


class RecordRef(Args):
    record_id: Id

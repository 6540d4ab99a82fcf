"""The arguments of every monitoring capability. Field names say what they hold; a description
is given only where the name alone does not."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AwareDatetime, Field

from domains.monitoring.tables import CheckState, Kind, Metric, Severity, State
from facade.kit import Id, Input, Page

Name = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$")]
Target = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        description="tcp 'host:port'; http URL; disk mount path; process name prefix; file_age path in the sandbox.",
    ),
]
Threshold = Annotated[
    float,
    Field(ge=0, description="Bad at or above it (ms, %, seconds); for process, bad below it (a count)."),
]
Interval = Annotated[int, Field(ge=10, le=86_400)]
Ids = Annotated[list[Id], Field(min_length=1, max_length=100)]
Note = Annotated[str, Field(max_length=1000)]
Since = Annotated[AwareDatetime | None, Field(description="Start of the window; default 7 days ago.")]
Until = Annotated[AwareDatetime | None, Field(description="End of the window; default now.")]


class CheckCreate(Input):
    name: Name
    kind: Kind
    target: Target
    warn_threshold: Threshold | None = None
    critical_threshold: Threshold | None = None
    interval_seconds: Interval = 60
    enabled: bool = True


class CheckUpdate(Input):
    check_id: Id
    name: Name | None = None
    target: Target | None = None
    warn_threshold: Threshold | None = None
    critical_threshold: Threshold | None = None
    interval_seconds: Interval | None = None
    enabled: bool | None = None


class CheckFilter(Page):
    kind: Kind | None = None
    state: CheckState | None = None
    enabled: bool | None = None


class CheckRef(Input):
    check_id: Id


class CheckRun(Input):
    check_id: Id | None = Field(default=None, description="Omit to run every enabled check.")


class ResultFilter(Page):
    check_id: Id | None = None
    state: State | None = None
    since: AwareDatetime | None = None
    until: AwareDatetime | None = None


class AlertFilter(Page):
    check_id: Id | None = None
    severity: Severity | None = None
    open: bool | None = None
    acknowledged: bool | None = None


class AlertAcknowledge(Input):
    alert_id: Id
    note: Note | None = None


class AlertBulkAcknowledge(Input):
    alert_ids: Ids
    note: Note | None = None


class SilenceCreate(Input):
    check_id: Id
    minutes: int | None = Field(default=None, ge=1, le=43_200, description="Length of the silence; or give until.")
    until: AwareDatetime | None = None
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class SampleCreate(Input):
    disk_path: str = Field(default="/", max_length=500, pattern=r"^/", description="Mount whose usage is sampled.")


class ResultExport(Input):
    check_id: Id | None = None
    since: AwareDatetime | None = None
    until: AwareDatetime | None = None
    format: Literal["json", "csv"] = "json"
    limit: int = Field(default=1000, ge=1, le=10_000)


class UptimeReport(Input):
    since: Since = None
    until: Until = None
    check_id: Id | None = None
    sla_percent: float = Field(default=99.0, ge=0, le=100)


class AlertReport(Input):
    since: Since = None
    until: Until = None


class SampleStats(Input):
    metric: Metric
    since: Since = None
    until: Until = None


class CheckBulkSetEnabled(Input):
    check_ids: Ids
    enabled: bool


class ResultPurge(Input):
    before: AwareDatetime = Field(description="Delete results checked before this time.")
    check_id: Id | None = None

"""The monitoring domain's settings, read from `FACADE_MONITORING_*` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class MonitoringSettings(BaseSettings):
    """Where file_age checks look and how long a probe may wait.

    Attributes:
        root: the sandbox whose files `file_age` checks watch (heartbeat files that jobs touch
            when they finish); a check's target is a path inside it.
        probe_timeout_seconds: the longest a TCP or HTTP probe waits before the target counts
            as unreachable (2 s keeps a run over all checks short; a loopback answer takes <10 ms).
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_MONITORING_", extra="ignore")

    root: Path = Path(".facade/monitoring")
    probe_timeout_seconds: float = Field(default=2.0, gt=0, le=60)


settings = settings_reader(MonitoringSettings)

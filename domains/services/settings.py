"""The services domain's settings, read from `FACADE_SERVICES_*` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class ServicesSettings(BaseSettings):
    """Where services run and log, and how long probes and stops may take.

    Attributes:
        root: the sandboxed folder holding every service's working folder and log file.
        probe_timeout: seconds a TCP or HTTP probe waits before reporting "unreachable".
        stop_timeout: seconds a stopped service gets to exit after SIGTERM before SIGKILL.
        start_grace: seconds a started service is watched for exiting at once (a typo in its
            command, a port in use), so that the start reports the failure instead of success.
        max_log_bytes: the most of a log's end one read looks at.
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_SERVICES_", extra="ignore")

    root: Path = Path(".facade/services")
    probe_timeout: float = Field(default=1.0, gt=0, le=30)
    stop_timeout: float = Field(default=5.0, gt=0, le=120)
    start_grace: float = Field(default=0.3, ge=0, le=10)
    max_log_bytes: int = Field(default=262_144, gt=0)


settings = settings_reader(ServicesSettings)

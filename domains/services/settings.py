"""The services domain's settings, read from `FACADE_SERVICES_*` variables (or facade.toml)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import data_folder, settings_reader


class ServicesSettings(BaseSettings):
    """Where services run and log, and how long probes and stops may take."""

    model_config = SettingsConfigDict(env_prefix="FACADE_SERVICES_", extra="ignore")

    root: Path = data_folder("services", "The sandboxed folder holding every service's working folder and log file.")
    probe_timeout: float = Field(default=1.0, gt=0, le=30, description='Seconds a TCP or HTTP probe waits before reporting "unreachable".')
    stop_timeout: float = Field(default=5.0, gt=0, le=120, description="Seconds a stopped service gets to exit after SIGTERM before SIGKILL.")
    # A typo in its command or a port in use shows within this time.
    start_grace: float = Field(
        default=0.3, ge=0, le=10, description="Seconds a started service is watched for exiting at once, so that the start reports the failure."
    )
    max_log_bytes: int = Field(default=262_144, gt=0, description="The most of a log's end one read looks at.")


settings = settings_reader(ServicesSettings)

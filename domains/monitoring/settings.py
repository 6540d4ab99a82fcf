"""The monitoring domain's settings, read from `FACADE_MONITORING_*` variables (or facade.toml)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import data_folder, settings_reader


class MonitoringSettings(BaseSettings):
    """Where file_age checks look and how long a probe may wait."""

    model_config = SettingsConfigDict(env_prefix="FACADE_MONITORING_", extra="ignore")

    root: Path = data_folder(
        "monitoring",
        "The sandbox whose files `file_age` checks watch (heartbeat files that jobs touch when they finish).",
    )
    # 2 s keeps a run over all checks short; a loopback answer takes <10 ms.
    probe_timeout_seconds: float = Field(
        default=2.0, gt=0, le=60, description="The longest a TCP or HTTP probe waits before the target counts as unreachable."
    )


settings = settings_reader(MonitoringSettings)

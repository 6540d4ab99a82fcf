"""The docker domain's settings, read from `FACADE_DOCKER_*` variables (or facade.toml)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class DockerSettings(BaseSettings):
    """Where the Engine API listens and how long to wait for it."""

    model_config = SettingsConfigDict(env_prefix="FACADE_DOCKER_", extra="ignore")

    host: str = Field(
        default="unix:///var/run/docker.sock",
        description="The Engine API: `unix:///path/to/docker.sock`, `tcp://host:port` or `http://host:port`.",
    )
    # 1.43 (Docker 24) is old enough for every engine still supported and has every endpoint used.
    api_version: str = Field(
        default="1.43", pattern=r"^1\.\d{1,2}$", description="The Engine API version every path is prefixed with (`/v1.43/…`)."
    )
    timeout: float = Field(
        default=10.0, gt=0, le=300, description="Seconds to wait for an ordinary answer; stops, pulls and execs add their own time."
    )
    pull_timeout: float = Field(default=300.0, gt=0, le=3600, description="Seconds a pull may take in all.")


settings = settings_reader(DockerSettings)

"""The docker domain's settings, read from `FACADE_DOCKER_*` environment variables."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class DockerSettings(BaseSettings):
    """Where the Engine API listens and how long to wait for it.

    Attributes:
        host: `unix:///path/to/docker.sock`, `tcp://host:port` or `http://host:port`.
        api_version: the Engine API version every path is prefixed with (`/v1.43/...`); 1.43
            (Docker 24) is old enough for every engine still supported and has every endpoint used.
        timeout: seconds to wait for an ordinary answer; stops, pulls and execs add their own time.
        pull_timeout: seconds a pull may take in all.
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_DOCKER_", extra="ignore")

    host: str = "unix:///var/run/docker.sock"
    api_version: str = Field(default="1.43", pattern=r"^1\.\d{1,2}$")
    timeout: float = Field(default=10.0, gt=0, le=300)
    pull_timeout: float = Field(default=300.0, gt=0, le=3600)


settings = settings_reader(DockerSettings)

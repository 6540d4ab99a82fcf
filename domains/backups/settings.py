"""The backups domain's settings, read from `FACADE_BACKUPS_*` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class BackupsSettings(BaseSettings):
    """Where the sandbox lives and how much one run may pack.

    Attributes:
        root: the sandbox; job sources, archives and restores are paths inside it
            (`sources/` holds the data to back up, `archives/` the archives the domain writes).
        max_source_bytes: the most one run may pack; a larger source fails the run instead of
            filling the disk (1 GiB suits the demo; an operator raises it for real data).
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_BACKUPS_", extra="ignore")

    root: Path = Path(".facade/backups")
    max_source_bytes: int = Field(default=1_073_741_824, gt=0)


settings = settings_reader(BackupsSettings)

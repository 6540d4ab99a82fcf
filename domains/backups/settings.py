"""The backups domain's settings, read from `FACADE_BACKUPS_*` variables (or facade.toml)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import data_folder, settings_reader


class BackupsSettings(BaseSettings):
    """Where the sandbox lives and how much one run may pack."""

    model_config = SettingsConfigDict(env_prefix="FACADE_BACKUPS_", extra="ignore")

    root: Path = data_folder(
        "backups",
        "The sandbox: job sources (`sources/`), the archives the domain writes (`archives/`) and restores are paths inside it.",
    )
    # 1 GiB suits the demo; an operator raises it for real data.
    max_source_bytes: int = Field(
        default=1_073_741_824, gt=0, description="The most one run may pack; a larger source fails the run instead of filling the disk."
    )


settings = settings_reader(BackupsSettings)

"""The files domain's settings, read from `FACADE_FILES_*` variables (or facade.toml)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import data_folder, settings_reader


class FilesSettings(BaseSettings):
    """Where the sandbox lives and how much one call may move."""

    model_config = SettingsConfigDict(env_prefix="FACADE_FILES_", extra="ignore")

    root: Path = data_folder("files", "The sandboxed folder; every path a caller gives is relative to it.")
    # 1 MiB keeps a tool result within a model's context.
    max_read_bytes: int = Field(
        default=1_048_576, gt=0, description="The most one read returns; larger files are read in parts with offset/length."
    )
    max_write_bytes: int = Field(default=1_048_576, gt=0, description="The most one write or append may store.")
    max_scan_bytes: int = Field(default=10_485_760, gt=0, description="Files larger than this are skipped by content searches.")
    max_extract_bytes: int = Field(
        default=104_857_600, gt=0, description="The most one archive extraction may write (a guard against zip bombs)."
    )
    max_extract_members: int = Field(default=10_000, gt=0, description="The most members one archive extraction may write.")


settings = settings_reader(FilesSettings)

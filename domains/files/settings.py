"""The files domain's settings, read from `FACADE_FILES_*` environment variables."""

from __future__ import annotations

from pathlib import Path

from facade.kit import settings_reader
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class FilesSettings(BaseSettings):
    """Where the sandbox lives and how much one call may move.

    Attributes:
        root: the sandboxed folder; every path a caller gives is relative to it.
        max_read_bytes: the most one read returns (1 MiB keeps a tool result within a model's
            context; larger files are read in parts with offset/length).
        max_write_bytes: the most one write or append may store.
        max_scan_bytes: files larger than this are skipped by content searches.
        max_extract_bytes: the most one archive extraction may write (guards against zip bombs).
        max_extract_members: the most members one archive extraction may write.
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_FILES_", extra="ignore")

    root: Path = Path(".facade/files")
    max_read_bytes: int = Field(default=1_048_576, gt=0)
    max_write_bytes: int = Field(default=1_048_576, gt=0)
    max_scan_bytes: int = Field(default=10_485_760, gt=0)
    max_extract_bytes: int = Field(default=104_857_600, gt=0)
    max_extract_members: int = Field(default=10_000, gt=0)


settings = settings_reader(FilesSettings)

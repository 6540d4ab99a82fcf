"""The documents domain's settings, read from `FACADE_DOCUMENTS_*` variables (or facade.toml)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import data_folder, settings_reader


class DocumentsSettings(BaseSettings):
    """Where the documents live and how much one call may read."""

    model_config = SettingsConfigDict(env_prefix="FACADE_DOCUMENTS_", extra="ignore")

    root: Path = data_folder("documents", "The sandboxed folder of documents; every path a caller gives is relative to it.")
    # A parser holds the whole file in memory, and an office file this big is rarely text an agent can use.
    max_file_bytes: int = Field(default=50 * 1024 * 1024, gt=0, description="Files larger than this are not opened.")
    # 100k characters is ~25k tokens, already a large tool result.
    max_text_chars: int = Field(
        default=100_000, gt=0, description="The most text one read returns; longer text is read in parts with `offset`."
    )


settings = settings_reader(DocumentsSettings)

"""The documents domain's settings, read from `FACADE_DOCUMENTS_*` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class DocumentsSettings(BaseSettings):
    """Where the documents live and how much one call may read.

    Attributes:
        root: the sandboxed folder; every path a caller gives is relative to it.
        max_file_bytes: files larger than this are not opened (a parser holds the whole file
            in memory, and an office file this big is rarely text an agent can use).
        max_text_chars: the most text one read returns; longer text is read in parts with
            offset (100k characters is ~25k tokens, already a large tool result).
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_DOCUMENTS_", extra="ignore")

    root: Path = Path(".facade/documents")
    max_file_bytes: int = Field(default=50 * 1024 * 1024, gt=0)
    max_text_chars: int = Field(default=100_000, gt=0)


settings = settings_reader(DocumentsSettings)

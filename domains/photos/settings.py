"""The photos domain's settings, read from `FACADE_PHOTOS_*` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class PhotosSettings(BaseSettings):
    """Where the library lives and how large an image one call may open.

    Attributes:
        root: the sandboxed library folder; every path a caller gives is relative to it.
        max_file_bytes: files larger than this are not opened.
        max_pixels: images with more pixels are refused before decoding (a small file can
            declare a huge canvas; 100 MP covers every camera sold today).
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_PHOTOS_", extra="ignore")

    root: Path = Path(".facade/photos")
    max_file_bytes: int = Field(default=200 * 1024 * 1024, gt=0)
    max_pixels: int = Field(default=100_000_000, gt=0)


settings = settings_reader(PhotosSettings)

"""The photos domain's settings, read from `FACADE_PHOTOS_*` variables (or facade.toml)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import data_folder, settings_reader


class PhotosSettings(BaseSettings):
    """Where the library lives and how large an image one call may open."""

    model_config = SettingsConfigDict(env_prefix="FACADE_PHOTOS_", extra="ignore")

    root: Path = data_folder("photos", "The sandboxed library folder; every path a caller gives is relative to it.")
    max_file_bytes: int = Field(default=200 * 1024 * 1024, gt=0, description="Files larger than this are not opened.")
    # A small file can declare a huge canvas; 100 MP covers every camera sold today.
    max_pixels: int = Field(default=100_000_000, gt=0, description="Images with more pixels are refused before decoding.")


settings = settings_reader(PhotosSettings)

"""A domain's own settings: read from FACADE_<DOMAIN>_* per call, refused as Unavailable naming
the variable, and a declaration without such a prefix stops start-up."""

from __future__ import annotations

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.errors import RegistryError, Unavailable
from facade.kit import domain_settings, settings_reader
from facade.kit.domain_settings import ServerContext


class GardenSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FACADE_GARDEN_", extra="ignore")

    beds: int = Field(default=4, gt=0)
    soil: str = "loam"
    frost: int = Field(default=0, validation_alias="FACADE_GARDEN_FROST_DAYS")


settings = settings_reader(GardenSettings)


class TestReader:
    """The reader returns the settings as the environment says at each call."""

    def test_defaults_then_a_change_without_a_restart(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("FACADE_GARDEN_BEDS", raising=False)
        assert settings().beds == 4
        monkeypatch.setenv("FACADE_GARDEN_BEDS", "9")
        assert settings().beds == 9

    def test_a_kept_read_follows_the_environment_and_the_server(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A read is kept between calls (issue 17), never past a change of what it was read from."""
        monkeypatch.setenv("FACADE_GARDEN_SOIL", "clay")
        first = settings()
        first.soil = "changed by a caller"
        assert settings().soil == "clay"  # each caller gets a copy of its own
        monkeypatch.setenv("facade_garden_soil", "sand")  # pydantic-settings reads names case-insensitively
        monkeypatch.delenv("FACADE_GARDEN_SOIL")
        assert settings().soil == "sand"
        monkeypatch.delenv("facade_garden_soil")
        assert settings().soil == "loam"
        monkeypatch.setattr(domain_settings, "_context", ServerContext(file_values={"garden_soil": "peat"}))
        assert settings().soil == "peat"

    @pytest.mark.parametrize(
        ("value", "reason"),
        [("0", "Input should be greater than 0"), ("many", "Input should be a valid integer")],
    )
    def test_a_bad_value_names_the_variable(self, monkeypatch: pytest.MonkeyPatch, value: str, reason: str) -> None:
        monkeypatch.setenv("FACADE_GARDEN_BEDS", value)
        with pytest.raises(Unavailable) as caught:
            settings()
        message = str(caught.value)
        assert message.startswith(f"unavailable: the garden domain is misconfigured (FACADE_GARDEN_BEDS: {reason}")
        assert message.endswith("); an operator must fix it")

    def test_a_field_read_through_an_alias_is_named_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_GARDEN_FROST_DAYS", "soon")
        with pytest.raises(Unavailable, match=r"misconfigured \(FACADE_GARDEN_FROST_DAYS: Input should be a valid integer"):
            settings()

    def test_says_what_it_reads(self) -> None:
        assert settings.__doc__ == "The garden domain's settings (FACADE_GARDEN_*) as the environment says now."


class TestDeclaration:
    """A settings model must be read from FACADE_<DOMAIN>_*: the prefix names the domain in messages."""

    @pytest.mark.parametrize("prefix", [None, "", "GARDEN_", "FACADE_", "FACADE_GARDEN"])
    def test_a_prefix_that_names_no_domain(self, prefix: str | None) -> None:
        config = SettingsConfigDict(extra="ignore") if prefix is None else SettingsConfigDict(env_prefix=prefix)

        class Loose(BaseSettings):
            model_config = config

        with pytest.raises(RegistryError, match=r"Loose: a domain's settings are FACADE_<DOMAIN>_\* variables"):
            settings_reader(Loose)

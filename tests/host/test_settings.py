"""The host's settings (facade/host/settings.py): read by pydantic-settings from the environment or
a given mapping, every bad value one line naming its variable, and documented in the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from facade.host.settings import DEFAULT_URL, HostSettings, HostSettingsError, host_settings, render_markdown, variables
from facade.host.variables import VARIABLES
from tests.support import REPO


class TestReading:
    """One model holds every variable the host reads; a mapping stands in for os.environ."""

    def test_defaults(self) -> None:
        settings = host_settings({})
        assert (settings.url, settings.provider, settings.model, settings.retries, settings.keep_cache, settings.slot) == (DEFAULT_URL, "openai", None, 3, False, None)
        assert (settings.sessions, settings.compact_at, settings.context_window, settings.skills) == (Path(".facade/sessions"), 0.8, None, None)

    def test_a_given_mapping_is_read_instead_of_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_HOST_MODEL", "from-the-environment")
        assert host_settings().model == "from-the-environment"
        assert host_settings({"FACADE_HOST_MODEL": "given"}).model == "given"
        assert host_settings({}).model is None

    def test_values_as_people_write_them(self) -> None:
        settings = host_settings({"FACADE_HOST_CONTEXT_WINDOW": "32,768", "FACADE_HOST_KEEP_CACHE": "1", "FACADE_HOST_MAX_TOKENS": "", "FACADE_URL": "http://10.0.0.2:8765"})
        assert (settings.context_window, settings.keep_cache, settings.max_tokens, settings.url) == (32768, True, None, "http://10.0.0.2:8765")

    @pytest.mark.parametrize(
        ("variable", "value", "message"),
        [
            ("FACADE_HOST_PROVIDER", "gemini", "FACADE_HOST_PROVIDER='gemini': choose one of openai, anthropic, fenced"),
            ("FACADE_HOST_COMPACT_AT", "80", "FACADE_HOST_COMPACT_AT='80': write a share of the window between 0 and 1 (e.g. 0.8)"),
            ("FACADE_HOST_CONTEXT_WINDOW", "0", "FACADE_HOST_CONTEXT_WINDOW='0': write a whole number of tokens"),
            ("FACADE_HOST_RETRIES", "21", "FACADE_HOST_RETRIES='21': write a whole number of retries from 0 to 20"),
            ("FACADE_HOST_KEEP_CACHE", "maybe", "FACADE_HOST_KEEP_CACHE='maybe': write true or false"),
            ("FACADE_HOST_SLOT", "-1", "FACADE_HOST_SLOT='-1': write the slot's number"),
            ("FACADE_HOST_MAX_TOKENS", "lots", "FACADE_HOST_MAX_TOKENS='lots': write a positive whole number of tokens"),
        ],
    )
    def test_a_bad_value_is_one_line_naming_the_variable(self, variable: str, value: str, message: str) -> None:
        with pytest.raises(HostSettingsError) as failed:
            host_settings({variable: value})
        assert str(failed.value).startswith(message) and "\n" not in str(failed.value)

    def test_a_misspelt_name_is_an_error_naming_the_closest(self) -> None:
        with pytest.raises(HostSettingsError, match=r"^unknown setting FACADE_HOST_MODLE; did you mean FACADE_HOST_MODEL\?$"):
            host_settings({"FACADE_HOST_MODLE": "qwen"})

    def test_the_server_knows_every_name(self) -> None:
        assert set(VARIABLES) == {v for v in variables(HostSettings)}
        assert {v for v in VARIABLES if v.startswith("FACADE_HOST_")} >= {"FACADE_HOST_RETRIES", "FACADE_HOST_KEEP_CACHE", "FACADE_HOST_SLOT", "FACADE_HOST_MODEL"}


class TestReadme:
    """The README's table of the host's settings is rendered from the model."""

    def test_the_table_is_generated(self) -> None:
        text = (REPO / "README.md").read_text()
        found = re.search(r"<!-- host-settings:begin -->\n(.*?)<!-- host-settings:end -->", text, re.S)
        assert found, "README.md has no <!-- host-settings:begin --> … <!-- host-settings:end --> section"
        assert found.group(1) == render_markdown(), "paste facade.host.settings.render_markdown() into it"

    def test_every_variable_the_host_source_names_is_a_setting(self) -> None:
        named = set()
        for path in (REPO / "facade/host").rglob("*.py"):
            named |= set(re.findall(r"FACADE_HOST_[A-Z_]+", path.read_text()))
        assert named <= set(VARIABLES), f"named in facade/host but not in HostSettings: {named - set(VARIABLES)}"

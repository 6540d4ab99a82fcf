"""Domains arrive from the bundled package, the entry-point group and FACADE_DOMAINS."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

import facade.catalogue.discovery as discovery
from facade.errors import RegistryError


class TestDiscovery:
    """Every source lands in one registry; a broken source names itself."""

    def test_bundled_domains(self) -> None:
        registry = discovery.discover()
        assert {"projects", "files"} <= set(registry.domains)

    def test_facade_domains_setting(self) -> None:
        registry = discovery.discover(["tests.fixtures.notes_domain"])
        assert "notes.add" in registry

    def test_entry_point_group(self, monkeypatch: pytest.MonkeyPatch) -> None:
        point = EntryPoint("notes", "tests.fixtures.notes_domain:domain", discovery.ENTRY_POINT_GROUP)
        monkeypatch.setattr(discovery, "entry_points", lambda group: [point] if group == point.group else [])
        # Found by the entry point and by the setting: the same Domain counts once.
        registry = discovery.discover(["tests.fixtures.notes_domain"])
        assert [c.name for c in registry if c.domain == "notes"] == ["notes.add"]

    def test_module_without_a_domain(self) -> None:
        with pytest.raises(RegistryError, match="'tests.fixtures' exposes no `domain`"):
            discovery.discover(["tests.fixtures"])

    def test_module_that_does_not_import(self) -> None:
        with pytest.raises(RegistryError, match="'no.such.module' failed to import"):
            discovery.discover(["no.such.module"])

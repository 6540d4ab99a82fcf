"""An empty database is created from the models' metadata and stamped at the heads (issue 17);
these tests hold that this builds exactly the schema that running every revision builds, on
SQLite and on PostgreSQL (a throwaway schema), and that Alembic then treats it as its own."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import Engine, MetaData, inspect, text

from facade.catalogue.discovery import discover
from facade.catalogue.registry import Registry
from facade.serving import migrate
from tests.domains.harness import postgres_schemas, schema_of, sqlite_engine

REGISTRY = discover()


def built(engine: Engine) -> dict[str, Any]:
    """Every table's schema and the revisions the version table holds."""
    with engine.connect() as connection:
        revisions = sorted(connection.execute(text(f"SELECT version_num FROM {migrate.VERSION_TABLE}")).scalars())
    return {"tables": schema_of(engine, ""), "revisions": revisions}


def assert_same_schema(by_metadata: Engine, by_revisions: Engine) -> None:
    migrate.upgrade(by_metadata, REGISTRY)
    migrate.run_revisions(by_revisions, REGISTRY)
    made, migrated = built(by_metadata), built(by_revisions)
    assert len(made["tables"]) > 60 and migrate.VERSION_TABLE in made["tables"]
    assert made["revisions"] == sorted(migrate.declared_heads(migrate.version_locations(REGISTRY)) or ())
    assert made == migrated


class TestCreatedEqualsMigrated:
    """create_all plus a stamp is the schema every revision builds."""

    def test_on_sqlite(self, tmp_path: Path) -> None:
        assert_same_schema(sqlite_engine(tmp_path / "made.db"), sqlite_engine(tmp_path / "migrated.db"))

    def test_on_postgresql(self) -> None:
        with postgres_schemas() as make:
            assert_same_schema(make(), make())


class TestWhenItApplies:
    """Only a database that holds none of the tables is created; Alembic takes it from there."""

    def test_alembic_finds_a_created_database_at_head(self, tmp_path: Path) -> None:
        from alembic.runtime.migration import MigrationContext

        engine = sqlite_engine(tmp_path / "a.db")
        migrate.upgrade(engine, REGISTRY)
        with engine.connect() as connection:
            assert migrate.at_head(connection, migrate.alembic_config(REGISTRY))
            assert set(MigrationContext.configure(connection).get_current_heads()) == set(
                migrate.declared_heads(migrate.version_locations(REGISTRY)) or ()
            )

    def test_a_database_with_tables_goes_through_the_revisions(self, tmp_path: Path) -> None:
        engine = sqlite_engine(tmp_path / "a.db")
        with engine.begin() as connection:  # a table of ours, left without a version table
            connection.execute(text("CREATE TABLE facade_audit (id INTEGER PRIMARY KEY)"))
            assert not migrate.create_empty(connection, REGISTRY, {"facade_0002"})
            assert not inspect(connection).has_table(migrate.VERSION_TABLE)

    def test_tables_of_domains_outside_the_registry_leave_it_to_the_revisions(self) -> None:
        """The metadata holds every imported domain's tables: creating from it for a registry
        of fewer would stamp heads whose tables went unbuilt, or build tables nobody stamps."""
        assert migrate.owned_tables(REGISTRY) is not None
        assert migrate.owned_tables(Registry([REGISTRY.domains["projects"]])) is None

    def test_a_new_domain_on_a_stamped_database_gets_its_revisions(self, tmp_path: Path) -> None:
        engine = sqlite_engine(tmp_path / "a.db")
        migrate.upgrade(engine, Registry())  # the facade's own tables only
        assert not [t for t in inspect(engine).get_table_names() if t.startswith("projects_")]
        migrate.upgrade(engine, Registry([REGISTRY.domains["projects"]]))
        assert [t for t in inspect(engine).get_table_names() if t.startswith("projects_")]
        with engine.connect() as connection:
            assert migrate.at_head(connection, migrate.alembic_config(Registry([REGISTRY.domains["projects"]])))

    def test_a_domain_whose_models_are_not_loaded_is_left_to_its_revisions(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        registry = REGISTRY
        assert migrate.owned_tables(registry) is not None
        monkeypatch.setattr(migrate, "Base", SimpleNamespace(metadata=MetaData()))  # revisions, no models
        assert migrate.owned_tables(registry) is None
        engine = sqlite_engine(tmp_path / "a.db")
        migrate.upgrade(engine, registry)  # so the revisions build it
        assert [t for t in inspect(engine).get_table_names() if t.startswith("projects_")]


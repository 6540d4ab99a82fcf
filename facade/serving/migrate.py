"""Schema migrations: each domain ships its Alembic revisions as a branch labelled with its
name, so that a third-party domain brings its tables the same way a bundled one does."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

import facade.access.audit_table  # noqa: F401  - the facade's own tables join Base.metadata
from facade.catalogue.registry import Registry

SCRIPT_LOCATION = Path(__file__).parent / "migrations"


def alembic_config(registry: Registry) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    # The facade's own branch (its audit log) first, then each domain's.
    locations = [str(SCRIPT_LOCATION / "versions")]
    locations += [str(d.migrations) for d in registry.domains.values() if d.migrations is not None]
    # Alembic splits this option on the separator; os.pathsep is safe for any folder name here.
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", ":".join(locations))
    return config


def upgrade(engine: Engine, registry: Registry) -> None:
    """Apply every domain's migrations up to its head."""
    config = alembic_config(registry)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "heads")

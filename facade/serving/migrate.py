"""Schema migrations: each domain ships its Alembic revisions as a branch labelled with its
name, so that a third-party domain brings its tables the same way a bundled one does.

Replicas started together on one database take turns: `exclusive` holds a lock across the
upgrade and the seeding, so that exactly one of them creates `alembic_version` and the demo rows,
and the others find them there.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

import structlog
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

import facade.access.audit_table  # noqa: F401  - the facade's own tables join Base.metadata
from facade.catalogue.registry import Registry

log = structlog.get_logger("facade.serving.migrate")

SCRIPT_LOCATION = Path(__file__).parent / "migrations"
# The advisory lock every replica takes while it migrates and seeds: any fixed 64-bit number,
# the same in every version of the facade ("facade" in ASCII), unlikely to be another
# application's key on a shared server.
LOCK_KEY = int.from_bytes(b"facade", "big")


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


@contextlib.contextmanager
def exclusive(engine: Engine) -> Iterator[None]:
    """One process at a time on this database for the whole block; the others wait for it.
    PostgreSQL: an advisory lock; SQLite: a lock on a file beside the database. Either is
    released when the block ends or when the process dies."""
    database = engine.url.database
    if engine.dialect.name == "postgresql":
        with _advisory_lock(engine):
            yield
    elif engine.dialect.name == "sqlite" and database and database != ":memory:":
        with open(f"{database}.migrate-lock", "a") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)  # released when the file closes
            yield
    else:
        yield  # an in-memory database is this process's alone


@contextlib.contextmanager
def _advisory_lock(engine: Engine) -> Iterator[None]:
    """A session-level advisory lock, on a connection outside the engine's pool (so that even a
    pool of one leaves the migration its connection); it ends with that connection."""
    holder = create_engine(engine.url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with holder.connect() as connection:
            key = {"key": LOCK_KEY}
            if not connection.execute(text("SELECT pg_try_advisory_lock(:key)"), key).scalar():
                log.info("database.waiting_for_migration", hint="another replica is migrating or seeding")
                connection.execute(text("SELECT pg_advisory_lock(:key)"), key)
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), key)
    finally:
        holder.dispose()


def at_head(connection: Connection, config: Config) -> bool:
    """Whether the database already holds every branch's head revision (and nothing else)."""
    current = set(MigrationContext.configure(connection).get_current_heads())
    return current == set(ScriptDirectory.from_config(config).get_heads())


def upgrade(engine: Engine, registry: Registry) -> None:
    """Apply every domain's migrations up to its head; nothing at all when it is there already.
    Callers that may run beside another replica hold `exclusive` around it."""
    config = alembic_config(registry)
    with engine.begin() as connection:
        if at_head(connection, config):
            return
        config.attributes["connection"] = connection
        command.upgrade(config, "heads")

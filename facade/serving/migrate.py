"""Schema migrations: each domain ships its Alembic revisions as a branch labelled with its
name, so that a third-party domain brings its tables the same way a bundled one does.

Replicas started together on one database take turns: `exclusive` holds a lock across the
upgrade and the seeding, so that exactly one of them creates `alembic_version` and the demo rows,
and the others find them there.

An empty database is not migrated revision by revision: its tables are created from the models'
metadata and the version table is stamped at the heads (tests/test_migrations.py holds that both
ways build the same schema, on SQLite and PostgreSQL). Every later revision runs through Alembic.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from sqlalchemy import Column, Connection, Engine, MetaData, PrimaryKeyConstraint, String, Table, create_engine, inspect, text
from sqlalchemy.pool import NullPool

import facade.access.audit_table  # noqa: F401  - the facade's own tables join Base.metadata
from facade.catalogue.registry import Registry
from facade.file_lock import file_lock
from facade.kit.db import Base

if TYPE_CHECKING:
    from alembic.config import Config

log = structlog.get_logger("facade.serving.migrate")

SCRIPT_LOCATION = Path(__file__).parent / "migrations"
# The advisory lock every replica takes while it migrates and seeds: any fixed 64-bit number,
# the same in every version of the facade ("facade" in ASCII), unlikely to be another
# application's key on a shared server.
LOCK_KEY = int.from_bytes(b"facade", "big")
VERSION_TABLE = "alembic_version"  # Alembic's default, which migrations/env.py keeps
OWN_PREFIX = "facade_"  # the facade's own tables; a domain's are named `<domain>_…`


def version_locations(registry: Registry) -> list[Path]:
    """The facade's own branch (its audit log) first, then each domain's."""
    return [SCRIPT_LOCATION / "versions", *(d.migrations for d in registry.domains.values() if d.migrations is not None)]


def alembic_config(registry: Registry) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    locations = [str(p) for p in version_locations(registry)]
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
        with file_lock(f"{database}.migrate-lock"):
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
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    current = set(MigrationContext.configure(connection).get_current_heads())
    return current == set(ScriptDirectory.from_config(config).get_heads())


def upgrade(engine: Engine, registry: Registry) -> None:
    """Bring the database to every branch's head; nothing at all when it is there already.
    Callers that may run beside another replica hold `exclusive` around it.

    A database already at head (every start but the first) is recognised without Alembic, whose
    import and script scan were ~0.2 s of every start (measured 2026-12-02): the heads are read
    from the revision files' literal `revision`/`down_revision` and compared with the version
    table. An empty one is created from the metadata and stamped (`create_empty`). Anything
    those cannot settle goes to Alembic, which decides as before."""
    with engine.begin() as connection:
        heads = declared_heads(version_locations(registry))
        if heads is not None:
            current = current_revisions(connection)
            if heads == current or (current is None and create_empty(connection, registry, heads)):
                return
        _alembic_upgrade(connection, registry)


def run_revisions(engine: Engine, registry: Registry) -> None:
    """Apply the revisions themselves, whatever the database holds: what an empty database
    skips, for the tests that hold the revisions equal to the metadata."""
    with engine.begin() as connection:
        _alembic_upgrade(connection, registry)


def _alembic_upgrade(connection: Connection, registry: Registry) -> None:
    config = alembic_config(registry)
    if at_head(connection, config):
        return
    from alembic import command

    config.attributes["connection"] = connection
    command.upgrade(config, "heads")


def owned_tables(registry: Registry) -> list[Table] | None:
    """The tables the revisions of `registry` build, as the models declare them, in creation
    order. None (only the revisions know the schema) when a domain that ships revisions has no
    table in the metadata (its models were not imported), or when the metadata holds a table
    no prefix claims (a domain naming its tables otherwise, or one outside `registry`)."""
    prefixes = (OWN_PREFIX, *(f"{d.name}_" for d in registry.domains.values() if d.migrations is not None))
    tables = Base.metadata.sorted_tables
    if not all(t.name.startswith(prefixes) for t in tables):
        return None
    if not all(any(t.name.startswith(p) for t in tables) for p in prefixes):
        return None
    return tables


def create_empty(connection: Connection, registry: Registry, heads: set[str]) -> bool:
    """On a database that holds none of the tables: create them from the metadata and stamp
    the heads, in one transaction; False (nothing done) when the database is not that empty.
    Running every revision instead imported Alembic and cost ~0.3 s of CPU at the first start
    (issue 17)."""
    tables = owned_tables(registry)
    if tables is None or {t.name for t in tables} & set(inspect(connection).get_table_names()):
        return False
    Base.metadata.create_all(connection, tables=tables, checkfirst=False)  # none is there: checked above
    version = _version_table()
    version.create(connection)
    connection.execute(version.insert(), [{"version_num": head} for head in sorted(heads)])
    log.info("database.created", tables=len(tables), heads=sorted(heads))
    return True


def _version_table() -> Table:
    """The version table as Alembic makes it (alembic.runtime.migration), so that Alembic reads
    and updates a stamped database as one it migrated."""
    return Table(
        VERSION_TABLE,
        MetaData(),
        Column("version_num", String(32), nullable=False),
        PrimaryKeyConstraint("version_num", name=f"{VERSION_TABLE}_pkc"),
    )


def current_revisions(connection: Connection) -> set[str] | None:
    """The revisions in the database's version table; None when it has none."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    return set(connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars())


def declared_heads(locations: list[Path]) -> set[str] | None:
    """The head revisions of the revision files in `locations` (those no other revises), read
    as literals; None when any file does not declare them plainly (Alembic then decides)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for folder in locations:
        for path in sorted(folder.glob("*.py")):
            declared = _declared(path)
            if declared is None:
                return None
            revision, down = declared
            revisions.add(revision)
            revised.update(down)
    return revisions - revised if revisions else None


def _declared(path: Path) -> tuple[str, set[str]] | None:
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    values: dict[str, object] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(target, ast.Name) and node.value is not None:
            try:
                values[target.id] = ast.literal_eval(node.value)
            except ValueError:
                values[target.id] = ValueError
    revision, down = values.get("revision"), values.get("down_revision", ValueError)
    if not isinstance(revision, str):
        return None
    if down is None:
        return revision, set()
    if isinstance(down, str):
        return revision, {down}
    if isinstance(down, tuple | list) and all(isinstance(d, str) for d in down):
        return revision, set(down)
    return None

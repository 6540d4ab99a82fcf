"""What every domain test drives a domain with: a migrated and seeded database (SQLite from a
per-module template, or a throwaway PostgreSQL schema), the domain's sandbox folder, calls made
the way the server makes them, the example walk, and the migration-versus-tables.py contract."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import uuid
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from alembic import command
from sqlalchemy import Engine, create_engine, func, inspect, select, text
from sqlalchemy.exc import OperationalError

from facade.kit.capability import IDENTITY_FIELDS, CallContext, Capability, example_problem
from facade.kit.db import Base
from facade.serving.database import make_engine, session_factory
from facade.kit.domain import Domain
from facade.kit import Unavailable
from facade.serving.migrate import alembic_config, run_revisions, upgrade
from facade.catalogue.registry import Registry
from tests.support import POSTGRES_ADMIN_URL, need_service

# The server fills the identity fields before validating; handlers never see a token.
IDENTITY = {"auth_token": "", "conversation_id": "c1"}
# The share of core capabilities a domain keeps to: enough to work without elevating, few
# enough that the default catalogue stays small.
CORE_SHARE = (0.55, 0.65)
# The fixed seeds of the shuffled walks: order must carry no meaning, and a failure names its
# seed so that the same order can be replayed.
SHUFFLES = (7, 1312, 20261201)


def sqlite_engine(path: Path) -> Engine:
    return make_engine(f"sqlite:///{path}")


def count(engine: Engine, table: type[Any], *where: Any) -> int:
    with session_factory(engine)() as session:
        return session.scalar(select(func.count()).select_from(table).where(*where)) or 0


@contextlib.contextmanager
def postgres_schemas(before_drop: Callable[[Engine], None] | None = None) -> Iterator[Callable[[], Engine]]:
    """Makes engines on fresh PostgreSQL schemas, each dropped afterwards (`before_drop` first
    cleans up what a test left behind). A schema is far cheaper than a database per test.
    Skips when PostgreSQL is unreachable, unless FACADE_REQUIRE_SERVICES=1 makes that a failure."""
    admin = create_engine(POSTGRES_ADMIN_URL)
    try:
        with admin.connect():
            pass
    except (OperationalError, ImportError) as exc:
        admin.dispose()
        need_service("PostgreSQL", f"{POSTGRES_ADMIN_URL}: {type(exc).__name__}: {exc}".splitlines()[0])
    made: list[tuple[str, Engine]] = []

    def make() -> Engine:
        schema = f"facade_test_{uuid.uuid4().hex[:10]}"
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        separator = "&" if "?" in POSTGRES_ADMIN_URL else "?"
        engine = make_engine(f"{POSTGRES_ADMIN_URL}{separator}options=-csearch_path%3D{schema}")
        made.append((schema, engine))
        return engine

    try:
        yield make
    finally:
        for schema, engine in made:
            if before_drop is not None:
                before_drop(engine)
            engine.dispose()
            with admin.begin() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def schema_of(engine: Engine, prefix: str) -> dict[str, Any]:
    """Everything the inspector reports about the tables named `prefix*`, in a comparable form."""
    inspector = inspect(engine)
    described: dict[str, Any] = {}
    for table in sorted(t for t in inspector.get_table_names() if t.startswith(prefix)):
        pk = inspector.get_pk_constraint(table)
        described[table] = {
            "columns": [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(table)],
            "primary_key": (pk["name"], pk["constrained_columns"]),
            "foreign_keys": sorted(
                (fk["name"], tuple(fk["constrained_columns"]), fk["referred_table"], fk["options"].get("ondelete"))
                for fk in inspector.get_foreign_keys(table)
            ),
            "indexes": sorted((i["name"], tuple(i["column_names"]), i["unique"]) for i in inspector.get_indexes(table)),
            "uniques": sorted((u["name"], tuple(u["column_names"])) for u in inspector.get_unique_constraints(table)),
            "checks": sorted((c["name"], c["sqltext"]) for c in inspector.get_check_constraints(table)),
        }
        if engine.dialect.name == "sqlite":
            # The inspector does not report AUTOINCREMENT, which keeps deleted ids from coming back.
            with engine.connect() as connection:
                sql = connection.scalar(text("SELECT sql FROM sqlite_master WHERE name = :t"), {"t": table})
            described[table]["no_id_reuse"] = "AUTOINCREMENT" in sql
    return described


@dataclass
class Library:
    """A migrated, seeded database and the domain's folder beside it."""

    engine: Engine
    root: Path


@dataclass(frozen=True)
class DomainHarness:
    """One domain as its tests drive it.

    Attributes:
        domain: the domain under test.
        root_env: the setting naming the domain's sandbox folder, for a domain that has one.
    """

    domain: Domain
    root_env: str | None = None

    @property
    def prefix(self) -> str:
        """What every table of the domain is named with."""
        return f"{self.domain.name}_"

    def capability(self, action: str) -> Capability:
        for cap in self.domain.capabilities:
            if cap.action == action:
                return cap
        raise AssertionError(f"no capability {self.domain.name}.{action}")

    def assert_tiers(self, at_least: int, core_share: tuple[float, float] = CORE_SHARE) -> list[str]:
        """At least `at_least` capabilities, the core ones a share of them within `core_share`;
        returns the tiers in registration order, for a domain's own further floors."""
        tiers = [c.tier for c in self.domain.capabilities]
        assert len(tiers) >= at_least
        assert core_share[0] <= tiers.count("core") / len(tiers) <= core_share[1]
        return tiers

    def assert_descriptions_are_one_sentence(self, max_length: int | None = None) -> None:
        """Every description is one sentence (of at most `max_length` characters) that says
        nothing of tokens: rules shared by every tool live in TOOLS.md.j2, never here."""
        for cap in self.domain.capabilities:
            assert cap.description.endswith(".") and ". " not in cap.description, cap.name
            assert max_length is None or len(cap.description) <= max_length, cap.name
            assert "token" not in cap.description.lower(), cap.name

    def assert_descriptions_differ(self) -> None:
        """No two capabilities share a description, so that a model can tell them apart."""
        descriptions = [c.description for c in self.domain.capabilities]
        assert len(set(descriptions)) == len(descriptions)

    def assert_no_identity_fields(self) -> None:
        """No input model declares the identity fields; every parsed model has them, as the kit
        adds them there."""
        for cap in self.domain.capabilities:
            assert not set(IDENTITY_FIELDS) & set(cap.input_model.model_fields), cap.name
            assert set(IDENTITY_FIELDS) <= set(cap.parsed_model.model_fields), cap.name

    def assert_examples_validate(self) -> None:
        """Every capability has an example that its input model accepts."""
        for cap in self.domain.capabilities:
            assert cap.example is not None, cap.name
            assert example_problem(cap) is None, example_problem(cap)

    def assert_annotations_follow_the_verbs(
        self, reads: tuple[str, ...], destructive: tuple[str, ...] | None = None, *, also_reads: Collection[str] = ()
    ) -> None:
        """A capability is read-only exactly when its action ends in one of `reads` (or is one of
        `also_reads`), and, when `destructive` is given, destructive exactly when its action
        ends in one of those."""
        for cap in self.domain.capabilities:
            assert cap.annotations.read_only == (cap.action.endswith(reads) or cap.action in also_reads), cap.name
            if destructive is not None:
                assert cap.annotations.destructive == cap.action.endswith(destructive), cap.name

    def migrated(self, engine: Engine) -> Engine:
        upgrade(engine, Registry([self.domain]))
        return engine

    def by_revisions(self, engine: Engine) -> Engine:
        """The domain's tables as its revisions build them (an empty database is otherwise
        created from the metadata, which the contract compares them with)."""
        run_revisions(engine, Registry([self.domain]))
        return engine

    def seeded(self, engine: Engine) -> Engine:
        with session_factory(engine)() as session:
            assert self.domain.seed is not None
            self.domain.seed(session)
            session.commit()
        return engine

    def from_metadata(self, engine: Engine) -> Engine:
        """The domain's tables as tables.py declares them, without the migration."""
        tables = [t for t in Base.metadata.sorted_tables if t.name.startswith(self.prefix)]
        Base.metadata.create_all(engine, tables=tables)
        return engine

    def schema_of(self, engine: Engine) -> dict[str, Any]:
        return schema_of(engine, self.prefix)

    def run(self, engine: Engine | None, cap: Capability, args: dict[str, Any]) -> Any:
        """Run a capability the way the server does: validate the parsed model (identity fields
        filled), handle, commit or roll back. Without an engine the call has no database."""
        factory = session_factory(engine) if engine is not None else None
        ctx = CallContext(agent="test", conversation=IDENTITY["conversation_id"], session_factory=factory)
        try:
            result = cap.handler(ctx, cap.parsed_model.model_validate({**args, **IDENTITY}))
            if ctx.opened_db is not None:
                ctx.opened_db.commit()
            return result
        except Exception:
            if ctx.opened_db is not None:
                ctx.opened_db.rollback()
            raise
        finally:
            if ctx.opened_db is not None:
                ctx.opened_db.close()

    def call(self, engine: Engine | None, action: str, /, **args: Any) -> Any:
        return self.run(engine, self.capability(action), args)

    def order(self, shuffle: int | None = None) -> list[Capability]:
        """The capabilities in registration order, or shuffled by the seed `shuffle`."""
        caps = list(self.domain.capabilities)
        if shuffle is not None:
            random.Random(shuffle).shuffle(caps)
        return caps

    def walk(self, engine: Engine | None, shuffle: int | None = None) -> dict[str, Any]:
        """Every capability's example in registration order (or shuffled by the seed `shuffle`):
        action -> result, or the exception it raised (collected, so that one failure shows every
        other one too)."""
        outcomes: dict[str, Any] = {}
        for cap in self.order(shuffle):
            assert cap.example is not None, f"{cap.name} has no example"
            try:
                outcomes[cap.action] = self.run(engine, cap, cap.example)
            except Exception as exc:
                outcomes[cap.action] = exc
        return outcomes

    def assert_walk_succeeds(
        self, engine: Engine | None, unavailable: Collection[str] = (), *, shuffle: int | None = None
    ) -> dict[str, Any]:
        """The walk, every example succeeding with a non-empty, JSON-friendly object — but the
        actions in `unavailable`, which must raise Unavailable (their backend is documented as
        absent here). With `shuffle`, the examples run in the order that seed shuffles them
        into: none may rely on another having run. Returns the outcomes."""
        outcomes = self.walk(engine, shuffle)
        failures: list[str] = []
        for action, out in outcomes.items():
            name = f"{self.domain.name}.{action}"
            if action in unavailable:
                if not isinstance(out, Unavailable):
                    failures.append(f"{name}: expected Unavailable, got {out!r}")
            elif isinstance(out, Exception):
                failures.append(f"{name}: {type(out).__name__}: {out}")
            elif not (isinstance(out, dict) and out):
                failures.append(f"{name} returned {out!r}")
            else:
                json.dumps(out)  # JSON-friendly: raises on a date, a Decimal or a record
        if failures and shuffle is not None:
            order = ", ".join(outcomes)
            failures.insert(0, f"walked in the order of shuffle seed {shuffle} ({order}):")
        assert not failures, "\n".join(failures)
        return outcomes

    def sandbox(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        """Point the domain's root setting at `folder/root`; returns that folder."""
        assert self.root_env is not None, f"{self.domain.name} has no sandbox setting"
        monkeypatch.setenv(self.root_env, str(folder / "root"))
        return folder / "root"

    def template(self, folder: Path) -> Path:
        """A migrated, seeded SQLite file (and seeded sandbox) in `folder`, for each test to copy:
        migrating and seeding per test would cost more than most tests' own calls."""
        with pytest.MonkeyPatch.context() as patch:
            if self.root_env is not None:
                self.sandbox(folder, patch)
            engine = self.seeded(self.migrated(sqlite_engine(folder / "facade.db")))
            with engine.connect() as connection:  # the copy takes the file alone: fold the WAL in
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            engine.dispose()
        return folder

    @contextlib.contextmanager
    def copy(self, template: Path, into: Path) -> Iterator[Engine]:
        """This test's own copy of the template's database and sandbox, in `into` (point the
        setting at it with `sandbox`)."""
        shutil.copy2(template / "facade.db", into / "facade.db")
        if self.root_env is not None:
            shutil.copytree(template / "root", into / "root", symlinks=True)
        engine = sqlite_engine(into / "facade.db")
        try:
            yield engine
        finally:
            engine.dispose()


class MigrationContract:
    """The hand-written migration builds exactly the schema tables.py declares, and undoes it.

    A domain's test module subclasses it (as `TestMigration`), naming its harness and `tables`
    (their number, or their exact names), and defines the `pg_schema` fixture it needs.
    """

    harness: ClassVar[DomainHarness]
    tables: ClassVar[int | list[str]]

    def assert_tables(self, described: dict[str, Any]) -> None:
        if isinstance(self.tables, int):
            assert len(described) == self.tables
        else:
            assert sorted(described) == self.tables

    def test_matches_metadata_on_sqlite(self, tmp_path: Path) -> None:
        by_migration = self.harness.schema_of(self.harness.by_revisions(sqlite_engine(tmp_path / "a.db")))
        by_metadata = self.harness.schema_of(self.harness.from_metadata(sqlite_engine(tmp_path / "b.db")))
        self.assert_tables(by_migration)
        assert by_migration == by_metadata

    def test_matches_metadata_on_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        by_migration = self.harness.schema_of(self.harness.by_revisions(pg_schema()))
        self.assert_tables(by_migration)
        assert by_migration == self.harness.schema_of(self.harness.from_metadata(pg_schema()))

    def test_downgrade_removes_every_table(self, tmp_path: Path) -> None:
        engine = sqlite_engine(tmp_path / "c.db")
        registry = Registry([self.harness.domain])
        run_revisions(engine, registry)
        config = alembic_config(registry)
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, f"{self.harness.domain.name}@base")
        assert not [t for t in inspect(engine).get_table_names() if t.startswith(self.harness.prefix)]

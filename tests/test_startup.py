"""What start-up does and does not do (issue 14): building the service and its app imports none
of the domains' format libraries nor the redis client (their handlers import them when called),
and the garbage collector rests while the service is built (in `facade serve`, from its first
import until serving has frozen what start-up built). The figures are
scripts/bench_startup.py's; these tests hold the decisions that produced them."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import facade.serving.service as service_module
from facade.settings import DEMO_AGENTS, Settings
from tests.support import workdir_env

# Each was imported by some domain module at start-up (0.05-0.6 s apiece on 2 busy cores);
# joserfc only serves OAuth, alembic only a database that is not at head (issue 17).
DEFERRED = ("openpyxl", "fpdf", "pypdf", "docx", "icalendar", "dns", "redis", "numpy", "joserfc", "alembic")

BUILD_THE_SERVER = """
import json, sys
from facade.serving.service import build_service
from facade.web.app import build_app
from facade.mcp.fanout import Fanout
from facade.mcp.server import build_mcp_server
service = build_service()
build_app(service)
build_mcp_server(service, Fanout(), fixed_agent="atlas")
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def imported_at_start(tmp_path: Path) -> set[str]:
    env = {**workdir_env(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", BUILD_THE_SERVER], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_building_the_server_imports_no_format_library(tmp_path: Path) -> None:
    assert imported_at_start(tmp_path) & set(DEFERRED) == set()


def test_a_handler_still_imports_its_library_when_called(tmp_path: Path) -> None:
    """The office files the documents domain writes and reads are made by the same libraries,
    now imported by the call."""
    from domains.documents.extract import extract
    from domains.documents.writers import docx_bytes, pdf_bytes, xlsx_bytes

    (tmp_path / "a.docx").write_bytes(docx_bytes("Title", [("paragraph", "hello docx")]))
    (tmp_path / "a.xlsx").write_bytes(xlsx_bytes([("Sheet", [["name"], ["hello xlsx"]], True)]))
    (tmp_path / "a.pdf").write_bytes(pdf_bytes("Title", "hello pdf")[0])
    for kind in ("docx", "xlsx", "pdf"):
        assert f"hello {kind}" in extract(tmp_path / f"a.{kind}", f"a.{kind}").text


def test_the_collector_rests_while_the_service_is_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    building = False
    collections: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and building:
            collections.append(info["generation"])

    def watched(*args: Any) -> Any:
        nonlocal building
        building = True
        try:
            return build(*args)
        finally:
            building = False

    build = service_module._build_service
    monkeypatch.setattr(service_module, "_build_service", watched)
    gc.callbacks.append(count)
    try:
        service = service_module.build_service(Settings(data_dir=tmp_path / "data", agents_dir=DEMO_AGENTS))
    finally:
        gc.callbacks.remove(count)
    assert len(service.registry) > 400
    assert collections == []
    assert gc.isenabled()  # and back on afterwards


def test_the_collector_rests_while_the_database_is_prepared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Migrating and seeding a fresh demo database (issue 17), and on again afterwards."""
    service = service_module.build_service(Settings(data_dir=tmp_path / "data", agents_dir=DEMO_AGENTS).for_demo())
    enabled: dict[str, bool] = {}

    def watched(name: str, original: Callable[..., None]) -> Callable[..., None]:
        def run(*args: Any) -> None:
            enabled[name] = gc.isenabled()
            original(*args)

        return run

    monkeypatch.setattr(service_module.migrate, "upgrade", watched("migrate", service_module.migrate.upgrade))
    documents = service.registry.domains["documents"]
    assert documents.seed is not None
    monkeypatch.setattr(documents, "seed", watched("seed", documents.seed))
    service_module.prepare_database(service)
    assert enabled == {"migrate": False, "seed": False}
    assert (tmp_path / "data" / "documents").is_dir()  # it did seed
    assert gc.isenabled()


# `facade serve` from the moment it turns the collector off until serving has frozen what
# start-up built: every collection in between is counted.
SERVE_UNTIL_FROZEN = """
import gc, os, threading, time, sys
from facade.cli.main import main

counted, turned_off = [], []
gc.callbacks.append(lambda phase, info: phase == "start" and turned_off and counted.append(info["generation"]))
disable = gc.disable
heavy = ("mcp", "sqlalchemy", "starlette", "uvicorn")

def disabled():
    if not turned_off:
        turned_off.extend(name for name in heavy if name in sys.modules)
        turned_off.append("off")
    disable()

gc.disable = disabled
freeze, frozen_at = gc.freeze, []

def frozen():  # the serving lifecycle freezes (facade/serving/pauses.py): what was counted until then
    if not frozen_at:
        frozen_at.append(list(counted))
    freeze()

gc.freeze = frozen

def report():
    while not frozen_at:
        time.sleep(0.01)
    on_by = time.monotonic() + 60
    while not gc.isenabled() and time.monotonic() < on_by:
        time.sleep(0.01)
    print("imported, then off:", turned_off, "collections:", frozen_at[0], "on:", gc.isenabled(), flush=True)
    os._exit(0)

threading.Thread(target=report, daemon=True).start()
sys.argv = ["facade", "serve", "--demo", "--port", "0"]
main()
"""


def test_no_collection_walks_what_serve_imports_and_builds(tmp_path: Path) -> None:
    """The command's imports (the SDK, SQLAlchemy, Starlette: ~200,000 objects that live as long
    as the process) had two full collections walk them, and a young one walked all start-up
    built when the collector came back on before the freeze; serving turns it on."""
    env = {**workdir_env(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", SERVE_UNTIL_FROZEN], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("imported, then off: ['off'] collections: [] on: True"), done.stdout[-2000:]


PREPARE = """
import sys
from facade.serving.service import build_service, prepare_database
prepare_database(build_service())
print("alembic" in sys.modules)
"""


def test_a_database_empty_or_at_head_is_prepared_without_alembic(tmp_path: Path) -> None:
    env = {**workdir_env(tmp_path), "PATH": "/usr/bin:/bin"}

    def prepare() -> bool:
        done = subprocess.run([sys.executable, "-c", PREPARE], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.split()[-1] == "True"

    assert not prepare()  # the first start creates the tables from the metadata and stamps them
    assert not prepare()  # the next finds the database at head


def test_the_declared_heads_are_alembics(tmp_path: Path) -> None:
    from alembic.script import ScriptDirectory

    from facade.catalogue.discovery import discover
    from facade.serving import migrate

    registry = discover()
    heads = set(ScriptDirectory.from_config(migrate.alembic_config(registry)).get_heads())
    assert migrate.declared_heads(migrate.version_locations(registry)) == heads
    (tmp_path / "later.py").write_text('revision = "later"\ndown_revision = compute()\n')
    assert migrate.declared_heads([*migrate.version_locations(registry), tmp_path]) is None  # Alembic decides

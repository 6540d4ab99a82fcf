"""A permanent input error is an input error, on both databases: no argument a model can send
makes a call answer "unavailable" (which tells it to retry) or "internal error" (a crash).

Every capability of the registry, called in-process through `Calls.run` (the code every
transport calls) by an agent that sees every domain in full, with arguments generated from its
announced inputSchema and its working example with one value at a time at an extreme: ids past
PostgreSQL's integer and bigint, 1e20, NUL bytes, empty and very long text (tests/arguments.py).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from facade.catalogue.discovery import discover
from facade.catalogue.schema import announced_schema
from facade.serving.calls import CallRequest
from facade.serving.service import Service, build_service, prepare_database
from tests.arguments import cases_for, extreme_cases
from tests.fakes.docker_engine import running_engine
from tests.fakes.smtp import running_smtp
from tests.support import DEV, base_env, postgres_database

pytestmark = pytest.mark.anyio

REGISTRY = discover()
CONVERSATION = "input-errors"
CASES_PER_TOOL = 3  # generated from the schema, beside the example's extremes (~14 a tool)
# A call slower than this counts as a hang. It cancels an async handler; a handler in a worker
# thread runs to its own end, which the network's are bounded by: probes take at most 5 s
# (hosts' Timeout), SMTP and Docker go to the fakes started beside the service.
CALL_TIMEOUT = 60.0
SANDBOXES = ("documents", "photos", "backups", "monitoring", "services")
# What a model must never be told about arguments it sent: to retry, or that the server crashed.
OUTAGES = ("unavailable", "internal")


@contextlib.contextmanager
def service_on(workdir: Path, database_url: str | None) -> Iterator[Service]:
    """The whole service in this process, migrated and seeded, with every backend answering
    (a fake Docker engine and SMTP server) and `walker` elevated in `skills` too."""
    with contextlib.ExitStack() as stack:
        _, docker_host = stack.enter_context(running_engine())
        _, smtp_port = stack.enter_context(running_smtp())
        patch = stack.enter_context(pytest.MonkeyPatch.context())
        env = {
            **base_env(workdir),
            "FACADE_DOCKER_HOST": docker_host,
            "FACADE_MAIL_SMTP_HOST": "127.0.0.1",
            "FACADE_MAIL_SMTP_PORT": str(smtp_port),
            **{f"FACADE_{name.upper()}_ROOT": str(workdir / "roots" / name) for name in SANDBOXES},
            **({"FACADE_DATABASE_URL": database_url} if database_url else {}),
        }
        for name, value in env.items():
            patch.setenv(name, value)
        patch.delenv("FACADE_REDIS_URL", raising=False)
        service = build_service()
        stack.callback(service.engine.dispose)
        prepare_database(service)
        service.elevations.grant("walker", CONVERSATION, "skills")
        yield service


@pytest.fixture(scope="module")
def sqlite_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with service_on(tmp_path_factory.mktemp("input-sqlite"), None) as service:
        yield service


@pytest.fixture(scope="module")
def postgres_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with postgres_database() as url, service_on(tmp_path_factory.mktemp("input-pg"), url) as service:
        yield service


@pytest.fixture(params=["sqlite", "postgres"])
def service(request: pytest.FixtureRequest) -> Service:
    return request.getfixturevalue(f"{request.param}_service")


async def call(service: Service, name: str, arguments: dict[str, Any]) -> Any:
    request = CallRequest(name, arguments, bearer=DEV["walker"], conversation_header=CONVERSATION)
    with anyio.fail_after(CALL_TIMEOUT):
        return await service.calls.run(request)


def every_case() -> list[tuple[str, Any]]:
    cases = []
    for capability in REGISTRY:
        schema = announced_schema(capability.parsed_model)
        generated = cases_for(capability, CASES_PER_TOOL)
        cases += [(capability.name, arguments) for arguments in [*generated, *extreme_cases(schema, capability.example or {})]]
    return cases


CASES = every_case()


def shown(arguments: Any) -> str:
    text = json.dumps(arguments, default=str)
    return text if len(text) <= 200 else text[:200] + "…"


async def outages_of(service: Service) -> list[str]:
    """Every generated call whose outcome is an outage, with what was sent and answered."""
    failures = []
    for name, arguments in CASES:
        try:
            outcome = await call(service, name, arguments)
        except TimeoutError:
            failures.append(f"{name} {shown(arguments)}: no answer within {CALL_TIMEOUT:g} s")
            continue
        if outcome.status in OUTAGES:
            failures.append(f"{name} {shown(arguments)}: {outcome.status}: {outcome.error}")
    return failures


class TestNoInputIsAnOutage:
    """Generated and extreme arguments to every capability end as a success or a refusal that
    says what to change, on SQLite and on PostgreSQL."""

    def test_the_cases_cover_every_capability(self) -> None:
        assert len(REGISTRY) >= 400
        assert {name for name, _ in CASES} == {c.name for c in REGISTRY}
        assert len(CASES) >= 10 * len(REGISTRY)

    async def test_sqlite(self, sqlite_service: Service) -> None:
        await self.walk(sqlite_service)

    async def test_postgresql(self, postgres_service: Service) -> None:
        await self.walk(postgres_service)

    async def walk(self, service: Service) -> None:
        failures = await outages_of(service)
        assert failures == [], f"{len(failures)} of {len(CASES)} calls were outages:\n" + "\n".join(failures)


class TestWhatToChange:
    """The findings' own calls: each names the field and what it may hold."""

    @pytest.mark.parametrize(
        ("name", "arguments", "field", "says"),
        [
            ("projects.project_get", {"project_id": 2**31}, "project_id", "at most 2147483647"),
            ("projects.project_get", {"project_id": 2**63}, "project_id", "at most 2147483647"),
            ("projects.project_list", {"offset": 10**20}, "offset", "at most 2147483647"),
            ("projects.project_list", {"offset": 1e20}, "offset", "too large; integers are at most 9223372036854775807"),
            ("mail.message_get", {"message_id": 2**31}, "message_id", "at most 2147483647"),
            ("projects.project_create", {"name": "Q1\x00"}, "name", "NUL byte"),
            ("projects.task_bulk_create", {"project_id": 1, "tasks": [{"title": "a\x00"}]}, "tasks.0.title", "NUL byte"),
        ],
    )
    async def test_refused_with_the_field_named(self, service: Service, name: str, arguments: dict[str, Any], field: str, says: str) -> None:
        outcome = await call(service, name, arguments)
        assert outcome.status == "invalid_arguments", outcome
        assert f"`{field}`" in outcome.error and says in outcome.error, outcome.error

    async def test_an_id_at_the_limit_is_simply_not_found(self, service: Service) -> None:
        outcome = await call(service, "projects.project_get", {"project_id": 2**31 - 1})
        assert outcome.status == "domain_error" and "does not exist" in outcome.error

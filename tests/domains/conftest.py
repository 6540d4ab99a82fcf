"""Fixtures every domain's tests share; a module that needs more defines its own of the same name."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Engine

from tests.domains.harness import postgres_schemas


@pytest.fixture
def pg_schema() -> Iterator[Callable[[], Engine]]:
    """Makes engines on fresh PostgreSQL schemas, dropped after the test (skips without PostgreSQL)."""
    with postgres_schemas() as make:
        yield make

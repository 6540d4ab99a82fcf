"""The host against a real `facade serve` (the session's `server` fixture) over HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from facade.host.loop import AgentLoop, LoopConfig
from facade.host.permissions import PermissionPolicy, Prompter
from facade.host.providers.base import Provider
from facade.host.runtime import HostOptions, start
from tests.support import DEV, ServerProcess

Host = Callable[..., contextlib.AbstractAsyncContextManager[AgentLoop]]


@pytest.fixture
def host(server: ServerProcess, tmp_path: Path) -> Host:
    """`async with host(provider, ...) as loop`: an agent loop connected to the test server,
    its session and trajectory under tmp_path."""

    @contextlib.asynccontextmanager
    async def opened(
        provider: Provider,
        *,
        agent: str = "francis",
        era: str = "auto",
        policy: PermissionPolicy | None = None,
        prompter: Prompter | None = None,
        max_steps: int | None = None,
        session_id: str | None = None,
        agents_dir: Path | None = None,
        **config: Any,
    ) -> AsyncIterator[AgentLoop]:
        options = HostOptions(
            url=server.url,
            token=DEV[agent],
            mode=era,
            sessions_dir=tmp_path / "sessions",
            session_id=session_id,
            agents_dir=agents_dir or server.workdir / "agents",
            policy=policy or PermissionPolicy(),
            prompter=prompter,
            config=LoopConfig(max_steps=max_steps, cwd=tmp_path, **config),
        )
        async with start(agent, provider, options) as loop:
            yield loop

    return opened

"""The event loop and HTTP implementation every server here runs on: uvloop and httptools when
they are importable (they are dependencies wherever they build, pyproject.toml), else asyncio
and h11.

One choice for `facade serve`, its `--workers` and the benchmarks' baselines and floor
(scripts/benchkit.py, bench_throughput.py), so that a comparison never measures one side on a
faster loop than the other. Measured on a busy 2-core machine (bench_throughput.py --short,
2026-12-03, issue 17): CPU per tools/call from asyncio and h11 to uvloop and httptools, the
facade's 0.96–1.5 ms to 0.90–1.16 ms, the floor's 0.17–0.22 ms to 0.12–0.16 ms.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class HttpStack:
    """uvicorn's `loop` and `http` settings, by uvicorn's names for them."""

    loop: str
    http: str

    def uvicorn_options(self) -> dict[str, Any]:
        return {"loop": self.loop, "http": self.http}


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def http_stack() -> HttpStack:
    return HttpStack(
        loop="uvloop" if _importable("uvloop") else "asyncio",
        http="httptools" if _importable("httptools") else "h11",
    )

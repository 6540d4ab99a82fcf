"""The docker domain: a Docker Engine reached through its HTTP API, and its capabilities.

No engine runs on this machine, so here EVERY capability raises Unavailable ("docker engine not
reachable at unix:///var/run/docker.sock; start Docker or set FACADE_DOCKER_HOST"); the example
walk expects exactly that. Against an engine the examples run, in registration order, on a
small demo engine holding: containers `web` (running nginx:1.25), `worker` (exited) and
`old-job` (exited, removed by the walk); images nginx:1.25, busybox:1.36 and alpine:3.19 (the
last removed by the walk). The domain keeps no state of its own: no tables, no seed.

The handlers live in modules by concept and register on `domain` when imported; the import
order below is the registration order: the engine, containers, then images, networks, volumes.
"""

from __future__ import annotations

from facade.kit import Domain

domain = Domain(
    "docker",
    description="Docker containers, images, networks and volumes on a Docker Engine.",
    default_mode="core",
)

# The package's __init__ imports this module first, so these modules always find `domain` bound.
from domains.docker import containers, resources  # noqa: E402,F401,I001

__all__ = ["domain"]

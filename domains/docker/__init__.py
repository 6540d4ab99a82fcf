"""A Docker Engine, through its HTTP API: containers, images, networks and volumes.

No engine runs on this machine, so here EVERY capability raises Unavailable ("docker engine not
reachable at unix:///var/run/docker.sock; start Docker or set FACADE_DOCKER_HOST"); the example
walk expects exactly that. Against an engine every example succeeds whichever examples ran
before it, on a small demo engine holding: containers `web` (running nginx:1.25, which the
examples only read and exec in), `worker` (exited; the examples stop, start and restart it, each
idempotent) and `old-job` (exited, removed by its example); images nginx:1.25, busybox:1.36 and
alpine:3.19 (the last removed by its example; prune takes dangling images only). The domain
keeps no state of its own: no tables, no seed.
"""

from domains.docker import containers, resources
from domains.docker.settings import DockerSettings
from facade.kit import Domain

domain = Domain(
    "docker",
    description="Docker containers, images, networks and volumes on a Docker Engine.",
    default_mode="core",
    toolsets=(containers.tools, resources.tools),
    settings=DockerSettings,
)

__all__ = ["domain"]

"""Containers: list, logs, stats, raw inspection, exec, start, stop, restart, remove."""

from __future__ import annotations

from typing import Any

from domains.docker import engine, render
from domains.docker.engine import Hints, path_part
from domains.docker.inputs import (
    ContainerArgs,
    ContainerExec,
    ContainerFilter,
    ContainerLogs,
    ContainerRemove,
    ContainerStop,
)
from facade.kit import CallContext, InvalidRequest, Toolset, Unavailable

tools = Toolset()

Result = dict[str, Any]
MAX_OUTPUT = 65_536  # bytes of an exec's stdout or stderr kept: a tool result must fit a context
MAX_LINE = 4_000  # characters of one log line kept


def _missing(container: str) -> Hints:
    return Hints(
        missing=f"container {container!r} does not exist; list containers with docker.container_list",
        conflict="check its state with docker.container_list",
    )


def _path(container: str, tail: str = "") -> str:
    return f"/containers/{path_part(container)}{tail}"


@tools.capability("container_list", read_only=True, example={})
def container_list(ctx: CallContext, args: ContainerFilter) -> Result:
    """List containers, optionally by state or name."""
    filters: dict[str, list[str]] = {}
    if args.state:
        filters["status"] = [args.state]
    if args.name:
        filters["name"] = [args.name]
    params: dict[str, Any] = {"all": args.include_stopped or (args.state not in (None, "running"))}
    if filters:
        params["filters"] = engine.json_param(filters)
    found = engine.request("GET", "/containers/json", params=params).json()
    rows = [render.container(c) for c in found]
    return {"containers": rows[args.offset : args.offset + args.limit], "total": len(rows)}


# Reading logs is the first step of any diagnosis, so it is core although "logs" is no CRUD verb.
@tools.capability("container_logs", tier="core", read_only=True, example={"container": "web", "tail": 20})
def container_logs(ctx: CallContext, args: ContainerLogs) -> Result:
    """Read the last lines of a container's log."""
    if not (args.stdout or args.stderr):
        raise InvalidRequest("stdout and stderr are both false; ask for at least one of them")
    params: dict[str, Any] = {
        "stdout": args.stdout,
        "stderr": args.stderr,
        "tail": args.tail,
        "timestamps": args.timestamps,
    }
    if args.since is not None:
        params["since"] = int(args.since.timestamp())
    body = engine.request("GET", _path(args.container, "/logs"), params=params, hints=_missing(args.container)).body
    split = engine.frames(body)
    # Frames are joined before decoding: a character may straddle two frames.
    text = (body if split is None else b"".join(chunk for _, chunk in split)).decode("utf-8", "replace")
    lines = [line[:MAX_LINE] for line in text.splitlines()][-args.tail :]
    return {"container": args.container, "lines": lines, "count": len(lines)}


@tools.capability("container_stats", read_only=True, example={"container": "web"})
def container_stats(ctx: CallContext, args: ContainerArgs) -> Result:
    """Measure a running container's CPU, memory, network and disk use."""
    # stream=false waits for a second sample (about a second) so that the CPU share is real.
    answer = engine.request(
        "GET", _path(args.container, "/stats"), params={"stream": False}, hints=_missing(args.container), extra_time=5
    )
    return {"container": args.container, "stats": render.stats(answer.json())}


@tools.capability("inspect_container", read_only=True, example={"container": "web"})
def inspect_container(ctx: CallContext, args: ContainerArgs) -> Result:
    """Dump a container's full engine record: config, state, mounts and network settings."""
    answer = engine.request("GET", _path(args.container, "/json"), hints=_missing(args.container))
    return {"container": answer.json()}


@tools.capability(
    "container_exec", destructive=True, example={"container": "web", "command": ["nginx", "-v"], "timeout": 20}
)
def container_exec(ctx: CallContext, args: ContainerExec) -> Result:
    """Run a command inside a running container and return its output and exit code."""
    hints = Hints(
        missing=f"container {args.container!r} does not exist; list containers with docker.container_list",
        conflict=f"start it with docker.container_start container={args.container!r} first",
    )
    spec: dict[str, Any] = {"Cmd": args.command, "AttachStdout": True, "AttachStderr": True, "Tty": False}
    if args.workdir:
        spec["WorkingDir"] = args.workdir
    created = engine.request("POST", _path(args.container, "/exec"), body=spec, hints=hints).json()
    exec_id = str(created.get("Id", ""))
    if not exec_id.isalnum():  # it becomes part of the next paths
        raise Unavailable("the docker engine created the exec without a usable id; check FACADE_DOCKER_HOST")
    output = engine.request(
        "POST",
        f"/exec/{exec_id}/start",
        body={"Detach": False, "Tty": False},
        timeout=float(args.timeout),
        hints=Hints(slow="the command may still be running in the container; pass a larger timeout"),
    ).body
    stdout, stderr = engine.demux(output)
    state = engine.request("GET", f"/exec/{exec_id}/json").json()
    return {
        "container": args.container,
        "exit_code": state.get("ExitCode"),
        "stdout": stdout[:MAX_OUTPUT].decode("utf-8", "replace"),
        "stderr": stderr[:MAX_OUTPUT].decode("utf-8", "replace"),
        "truncated": len(stdout) > MAX_OUTPUT or len(stderr) > MAX_OUTPUT,
    }


# Stopping and starting containers is this domain's everyday change of state, so both are core.
@tools.capability("container_stop", tier="core", idempotent=True, example={"container": "worker", "wait": 5})
def container_stop(ctx: CallContext, args: ContainerStop) -> Result:
    """Stop a running container, killing it after the wait."""
    answer = engine.request(
        "POST",
        _path(args.container, "/stop"),
        params={"t": args.wait},
        hints=_missing(args.container),
        extra_time=args.wait,
    )
    # 304: it was not running; reporting that is more useful than an error.
    return {"container": args.container, "changed": answer.status != 304, "state": "exited"}


# Core for the reason given at container_stop.
@tools.capability("container_start", tier="core", idempotent=True, example={"container": "worker"})
def container_start(ctx: CallContext, args: ContainerArgs) -> Result:
    """Start a stopped container."""
    answer = engine.request("POST", _path(args.container, "/start"), hints=_missing(args.container))
    return {"container": args.container, "changed": answer.status != 304, "state": "running"}


@tools.capability("container_restart", example={"container": "worker", "wait": 5})
def container_restart(ctx: CallContext, args: ContainerStop) -> Result:
    """Restart a container (a stopped one is started)."""
    engine.request(
        "POST",
        _path(args.container, "/restart"),
        params={"t": args.wait},
        hints=_missing(args.container),
        extra_time=args.wait,
    )
    return {"container": args.container, "restarted": True, "state": "running"}


@tools.capability("container_remove", approval=2, destructive=True, idempotent=True, example={"container": "old-job"})
def container_remove(ctx: CallContext, args: ContainerRemove) -> Result:
    """Remove a container."""
    hints = Hints(
        missing=f"container {args.container!r} does not exist; list containers with docker.container_list",
        conflict=f"stop it with docker.container_stop container={args.container!r} first, or pass force=true",
    )
    engine.request("DELETE", _path(args.container), params={"force": args.force, "v": args.volumes}, hints=hints)
    return {"removed": {"container": args.container}, "volumes_removed": args.volumes}

"""The domain's rules, each written once: names and ports are unique, commands parse and run
without a shell, folders stay in the sandbox, health URLs point at this machine, and a running
service keeps its definition until it is stopped."""

from __future__ import annotations

import shlex
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.services import processes, sandbox
from domains.services.probes import is_loopback_url
from domains.services.tables import Service
from facade.kit import Conflict, InvalidRequest

# Words a shell would treat as operators; without a shell they would silently become arguments.
SHELL_OPERATORS = frozenset({"|", "||", "&", "&&", ";", ">", ">>", "<", "<<", "2>", "2>&1"})
# Fields that describe how the running process was started: changing them under it would make
# the definition lie about what runs, and stop/status would then look for the wrong process.
LAUNCH_FIELDS = ("command", "working_dir", "log_file", "port")


def argv(command: str) -> list[str]:
    """The command split like a shell would, refused when a shell would be needed."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise InvalidRequest(f"the command does not parse ({exc}); close its quotes") from None
    if not words:
        raise InvalidRequest("the command is empty; give a program and its arguments, e.g. 'sleep 300'")
    operators = sorted(SHELL_OPERATORS.intersection(words))
    if operators:
        raise InvalidRequest(
            f"the command uses shell operators {operators}, but services run without a shell; "
            "run one program, or wrap the pipeline as: sh -c '...'"
        )
    return words


def folder(path: str, what: str) -> str:
    """The path as stored: checked against the sandbox and made relative to its root."""
    stored = sandbox.relative(sandbox.resolve(path))
    if what == "log_file" and (stored == "" or path.endswith("/") or sandbox.resolve(path).is_dir()):
        raise InvalidRequest(f"log_file {path!r} is a folder; give a file path, e.g. 'logs/web.log'")
    return stored


def health_url(url: str) -> str:
    if not is_loopback_url(url):
        raise InvalidRequest(
            f"health_url {url!r} must be an http:// URL on this machine (127.0.0.1, localhost or [::1]), "
            "e.g. http://127.0.0.1:8080/health"
        )
    return url


def name_free(db: Session, name: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(Service.id).where(func.lower(Service.name) == name.lower(), Service.id != except_id))
    if clash is not None:
        raise Conflict(f"service {clash} is already named {name!r}; choose another name")


def port_free(db: Session, port: int, except_id: int | None = None) -> None:
    clash = db.scalars(select(Service).where(Service.port == port, Service.id != except_id)).first()
    if clash is not None:
        raise Conflict(f"service {clash.id} ({clash.name}) already uses port {port}; pick another port")


def check_create(db: Session, values: dict[str, Any]) -> None:
    """Refuse a bad definition; fill in the default log file and store paths relative to the root."""
    name_free(db, values["name"])
    argv(values["command"])
    values["working_dir"] = folder(values["working_dir"], "working_dir")
    values["log_file"] = folder(values["log_file"] or f"logs/{values['name']}.log", "log_file")
    if values["port"] is not None:
        port_free(db, values["port"])
    if values["health_url"] is not None:
        values["health_url"] = health_url(values["health_url"])


def check_update(db: Session, service: Service, changes: dict[str, Any]) -> None:
    proc = processes.owned(service)
    moved = [f for f in LAUNCH_FIELDS if f in changes and changes[f] != getattr(service, f)]
    if proc is not None and moved:
        raise Conflict(
            f"service {service.id} is running (pid {proc.pid}); stop it with services.service_stop "
            f"before changing {', '.join(moved)}"
        )
    if changes.get("name") is not None:
        name_free(db, changes["name"], service.id)
    if changes.get("command") is not None:
        argv(changes["command"])
    for field in ("working_dir", "log_file"):
        if changes.get(field) is not None:
            changes[field] = folder(changes[field], field)
    if changes.get("port") is not None:
        port_free(db, changes["port"], service.id)
    if changes.get("health_url") is not None:
        changes["health_url"] = health_url(changes["health_url"])


def check_delete(db: Session, service: Service) -> dict[str, Any]:
    proc = processes.owned(service)
    if proc is not None:
        raise Conflict(
            f"service {service.id} is running (pid {proc.pid}); stop it with services.service_stop before "
            "deleting it, or it would keep running with nothing to stop it"
        )
    return {"removed_events": len(service.events), "log_file_kept": service.log_file}

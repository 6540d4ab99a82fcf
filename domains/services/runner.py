"""Starting and stopping services. A service runs detached (its own session, so it outlives the
server), writes to its log file in the sandbox, and is recorded by pid and start time; only a
process recorded that way is ever signalled."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy.orm import Session

from domains.services import processes, rules, sandbox
from domains.services.probes import tcp
from domains.services.settings import settings
from domains.services.tables import Service, ServiceEvent
from facade.kit import Conflict, InvalidRequest, Unavailable, utcnow

# What a service inherits from the server's environment: enough to find programs and speak the
# locale, never the server's own settings and secrets (database URLs, tokens).
INHERITED = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYENV_ROOT")

# Exit codes of children this server started, collected by the threads that reap them; a stop
# in the same process reports the code, one in another replica reports null.
_exit_codes: dict[int, int] = {}


def note(log: Path, text: str) -> None:
    """Append one line of our own to a service's log, so its log tells its whole story."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        with log.open("a", encoding="utf-8") as out:
            out.write(f"[{stamp}] services: {text}\n")
    except OSError:
        pass  # the log is a convenience; a full disk must not stop a stop


def _environment(service: Service) -> dict[str, str]:
    env = {k: os.environ[k] for k in INHERITED if k in os.environ}
    env["SERVICE_NAME"] = service.name
    if service.port is not None:
        env["PORT"] = str(service.port)
    return env


def forget(db: Session, service: Service) -> int | None:
    """Clear a recorded process that is gone, with an "exited" event; returns its pid."""
    pid = service.pid
    if pid is None:
        return None
    db.add(
        ServiceEvent(service=service, kind="exited", pid=pid, exit_code=_exit_codes.pop(pid, None), detail="found gone")
    )
    service.pid = service.pid_created = None
    return pid


def strangers(service: Service) -> None:
    """Refuse when the service's command already runs in a process this domain did not start."""
    others = processes.running_command(rules.argv(service.command), sandbox.resolve(service.working_dir))
    if others:
        raise Conflict(
            f"service {service.id} ({service.name}) already runs as pid {others[0].pid}, which this domain did "
            "not start and will not signal; stop it by its own means"
        )


def start(db: Session, service: Service) -> dict[str, Any]:
    if not service.enabled:
        raise Conflict(f"service {service.id} is disabled; enable it with services.service_update enabled=true")
    current = processes.owned(service)
    if current is not None:
        return {"changed": False, "pid": current.pid, "running": True}
    forget(db, service)
    words = rules.argv(service.command)
    strangers(service)
    config = settings()
    if service.port is not None and tcp(service.port, config.probe_timeout)["reachable"]:
        raise Conflict(
            f"port {service.port} on 127.0.0.1 is already in use by another program; free it, or change "
            f"the port with services.service_update service_id={service.id}"
        )
    program = shutil.which(words[0])
    if program is None:
        raise InvalidRequest(
            f"{words[0]!r} is not a program on this machine's PATH; fix the command with services.service_update"
        )
    workdir, log = sandbox.resolve(service.working_dir), sandbox.resolve(service.log_file)
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        log.parent.mkdir(parents=True, exist_ok=True)
        note(log, f"starting {service.command!r} in /{service.working_dir}")
        with log.open("ab") as out:
            child = subprocess.Popen(
                words,
                executable=program,
                cwd=workdir,
                env=_environment(service),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # detached: its own session, no signals from our terminal
                close_fds=True,
            )
    except OSError as exc:
        raise Unavailable(
            f"service {service.id} could not be launched ({exc.strerror or exc}); check its command and folders"
        ) from None
    try:
        code = child.wait(timeout=config.start_grace) if config.start_grace else None
    except subprocess.TimeoutExpired:
        code = None
    if code is not None or child.poll() is not None:
        code = child.returncode
        note(log, f"pid {child.pid} exited at once with code {code}")
        raise InvalidRequest(
            f"service {service.id} exited at once with code {code}; read why with services.service_logs, "
            "fix it with services.service_update, then start it again"
        )
    threading.Thread(target=_reap, args=(child,), daemon=True, name=f"reap-{child.pid}").start()
    service.pid, service.pid_created, service.started_at = child.pid, psutil.Process(child.pid).create_time(), utcnow()
    db.add(ServiceEvent(service=service, kind="started", pid=child.pid, detail=service.command))
    db.flush()
    return {"changed": True, "pid": child.pid, "running": True}


def _reap(child: subprocess.Popen[bytes]) -> None:
    """Wait for a child so that it does not linger as a zombie, and keep its exit code."""
    _exit_codes[child.pid] = child.wait()


def _signal_group(proc: psutil.Process, sig: signal.Signals) -> None:
    """Signal the service's process group, which exists only because this domain started it;
    fall back to the process alone if the group is already gone."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, sig)
            return
    except ProcessLookupError:
        return
    except PermissionError:
        pass
    proc.send_signal(sig)


def stop(db: Session, service: Service) -> dict[str, Any]:
    proc = processes.owned(service)
    if proc is None:
        gone = forget(db, service)
        strangers(service)
        db.flush()
        return {"changed": False, "running": False, "exited_before": gone}
    pid = proc.pid
    wait = settings().stop_timeout
    kind = "stopped"
    code: int | None = None
    try:
        # The service runs in a session of its own (start_new_session): its process group is the
        # service, children included — a shell's `sleep` must not outlive `stop`.
        family = [proc, *proc.children(recursive=True)]
        _signal_group(proc, signal.SIGTERM)
        ended, alive = psutil.wait_procs(family, timeout=wait)
        if alive:
            _signal_group(proc, signal.SIGKILL)
            kind = "killed"
            more, _ = psutil.wait_procs(alive, timeout=wait)
            ended += more
        # wait_procs sets `returncode` on each ended process (None when it was not our child).
        code = next((c for c in (getattr(p, "returncode", None) for p in ended) if c is not None), None)
    except psutil.NoSuchProcess:
        pass  # it exited on its own in between: stopped all the same
    # Whoever reaped the child first (psutil here, or the reaping thread) has the true code.
    reaped = _exit_code(pid)
    code = code if code is not None else reaped
    log = sandbox.resolve(service.log_file)
    note(log, f"{kind} pid {pid}" + (f" (exit code {code})" if code is not None else ""))
    service.pid = service.pid_created = None
    db.add(
        ServiceEvent(
            service=service,
            kind=kind,
            pid=pid,
            exit_code=code,
            detail="SIGKILL after SIGTERM" if kind == "killed" else "SIGTERM",
        )
    )
    db.flush()
    return {"changed": True, "running": False, "pid": pid, "exit_code": code, "killed": kind == "killed"}


def _exit_code(pid: int) -> int | None:
    """The code the reaping thread kept, if this process started the child; it sets it a moment
    after the child ends."""
    if not any(t.name == f"reap-{pid}" for t in threading.enumerate()) and pid not in _exit_codes:
        return None
    for _ in range(50):
        if pid in _exit_codes:
            return _exit_codes.pop(pid)
        time.sleep(0.01)
    return None


def tail(service: Service, lines: int) -> dict[str, Any]:
    log = sandbox.resolve(service.log_file)
    if not log.is_file():
        return {"log_file": service.log_file, "exists": False, "lines": []}
    limit = settings().max_log_bytes
    try:
        with log.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(size - limit, 0))
            data = handle.read()
    except OSError as exc:
        raise Unavailable(f"the log {service.log_file} cannot be read ({exc.strerror}); retry later") from None
    text = data.decode("utf-8", "replace").splitlines()
    if size > limit:
        text = text[1:]  # the first line was cut by the byte limit
    return {"log_file": service.log_file, "exists": True, "size_bytes": size, "lines": text[-lines:]}

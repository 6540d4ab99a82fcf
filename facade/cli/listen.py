"""`facade serve`'s socket and banner: the port is bound before anything is announced, so that a
port in use is one line (exit 1) instead of a banner followed by uvicorn's failure."""

from __future__ import annotations

import errno
import socket

import structlog

from facade.cli.httpstack import HttpStack
from facade.errors import StartupError
from facade.serving.service import Service

log = structlog.get_logger("facade.serve")


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready socket on (host, port), bound as uvicorn would bind it; a StartupError
    saying what to change when it cannot be."""
    try:
        family, kind, proto, _, _ = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)[0]
    except socket.gaierror as exc:
        raise StartupError(f"cannot listen on {host!r} ({exc.strerror}); set --host / FACADE_HOST to an address of this machine") from None
    # proto=IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say
    # they are TCP, and accepted ones inherit it. With 0 every response's body waited ~40 ms for
    # the delayed ACK of its headers (bench_serve.py: 44 ms calls, 2026-12-02).
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise StartupError(
                f"port {port} on {host} is in use; stop what holds it, or choose another with --port / FACADE_PORT"
            ) from None
        raise StartupError(f"cannot listen on {host}:{port} ({exc.strerror}); change --host / --port") from None
    # Listening already: a client that connects once the banner is out waits in the backlog
    # while uvicorn starts, instead of being refused (uvicorn's own backlog).
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def announce(service: Service, sock: socket.socket, stack: HttpStack, *, runtime_list_bytes: int | None = None) -> None:
    """One structured line once the port is bound: where to connect, where data goes, whether
    development tokens are accepted (only on loopback, DESIGN "Identity"), what it runs on, and
    the size of a runtime's list (the whole catalogue's array, when it was built at start)."""
    settings = service.settings
    port = sock.getsockname()[1]
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    base = settings.public_url.rstrip("/") or f"http://{host}:{port}"
    development = []
    if settings.on_loopback:
        development += [f"agent {a.name}" for a in service.agents.values() if a.dev_token]
        development += [] if settings.runtime_token_list else ["runtime"]
        development += [] if settings.operator_token else ["operator"]
    log.info(
        "serving",
        mcp=f"{base}/mcp",
        dashboard=f"{base}/dashboard",
        data_dir=str(settings.data_dir.resolve()),
        database=service.engine.dialect.name,
        development_tokens=bool(development),
        development_token_for=development,
        capabilities=len(service.registry),
        domains=len(service.registry.domains),
        runtime_list_bytes=runtime_list_bytes,
        agents=sorted(service.agents),
        loop=stack.loop,
        http=stack.http,
    )

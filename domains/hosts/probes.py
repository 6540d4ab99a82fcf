"""Probes of the real network: a TCP connect, an HTTP(S) GET, a scan of a few ports. What a
probe finds — refused, timed out, unresolvable — is its result, returned as data and kept in
the history; only a call that makes no sense (a malformed URL) is refused."""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from domains.hosts import inputs
from domains.hosts.inputs import Target
from domains.hosts.inventory import HOST
from domains.hosts.tables import Host, Probe
from facade.kit import CallContext, InvalidRequest, Toolset, progress

Result = dict[str, Any]
tools = Toolset()
full_tools = Toolset()  # listed after the machine's core tools


# Headers worth showing a model: what answered, what it sent, where it redirects.
SHOWN_HEADERS = (
    "server",
    "content-type",
    "content-length",
    "location",
    "date",
    "cache-control",
    "strict-transport-security",
)
USER_AGENT = "facade-hosts-probe/1"


def target_of(db: Session, args: Target) -> tuple[Host | None, str]:
    """The inventory host (if any) and the address to probe."""
    if args.host_id is not None:
        host = HOST.fetch(db, args.host_id)
        return host, host.address
    assert args.address is not None  # the input model demands one of the two
    return _host_at(db, args.address), args.address


def _host_at(db: Session, name_or_address: str) -> Host | None:
    """The inventory host probed by address or name, so its history joins the host's."""
    return db.scalars(
        select(Host).where(or_(Host.address == name_or_address, Host.name == name_or_address)).order_by(Host.id)
    ).first()


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def describe(exc: BaseException, timeout: float) -> str:
    """A short, stable text for a failed connection."""
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"timed out after {timeout:g}s"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return f"name does not resolve ({exc.strerror})"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({exc.verify_message}); pass verify_tls=false to probe anyway"
    if isinstance(exc, ssl.SSLError):
        return f"TLS handshake failed ({exc.reason or exc})"
    if isinstance(exc, http.client.HTTPException):
        return f"the server did not answer HTTP ({type(exc).__name__})"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return str(exc) or type(exc).__name__


def tcp_connect(address: str, port: int, timeout: float) -> Result:
    started = time.perf_counter()
    try:
        with socket.create_connection((address, port), timeout=timeout):
            return {"reachable": True, "latency_ms": _ms(started)}
    except (OSError, UnicodeError) as exc:
        return {"reachable": False, "error": describe(exc, timeout)}


def record(db: Session, kind: str, host: Host | None, target: str, port: int | None, found: Result) -> Probe:
    probe = Probe(
        host_id=host.id if host else None,
        kind=kind,
        target=target[:2000],
        port=port,
        reachable=found["reachable"],
        status_code=found.get("status"),
        latency_ms=found.get("latency_ms"),
        error=(found.get("error") or None) and found["error"][:500],
    )
    db.add(probe)
    db.flush()
    return probe


def probe_tcp(db: Session, args: Target, port: int | None, timeout: float) -> Result:
    host, address = target_of(db, args)
    port = port or (host.ssh_port if host else 22)
    found = tcp_connect(address, port, timeout)
    probe = record(db, "tcp", host, address, port, found)
    return {"probe_id": probe.id, "host_id": probe.host_id, "address": address, "port": port, **found}


def http_get(url: str, timeout: float, verify_tls: bool) -> Result:
    """GET `url` once, without following redirects (a redirect is an answer worth seeing)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    connection: http.client.HTTPConnection
    if scheme == "https":
        context = ssl.create_default_context()
        if not verify_tls:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        connection = http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout, context=context)
    else:
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    started = time.perf_counter()
    try:
        connection.request("GET", path, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
        response = connection.getresponse()
        latency = _ms(started)
        body = response.read(65_536)  # enough to see the server is alive; never the whole page
        return {
            "reachable": True,
            "status": response.status,
            "reason": response.reason,
            "latency_ms": latency,
            "headers": {k: v for k, v in ((h, response.getheader(h)) for h in SHOWN_HEADERS) if v is not None},
            "body_bytes_read": len(body),
        }
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: e.g. an IDN name that does not encode
        return {"reachable": False, "error": describe(exc, timeout)}
    finally:
        connection.close()


def probe_http(db: Session, url: str, timeout: float, verify_tls: bool) -> Result:
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError on a port outside 0-65535
    except ValueError as exc:
        raise InvalidRequest(f"{url!r} is not a valid URL ({exc}); give e.g. http://127.0.0.1:8080/health") from None
    if not parts.hostname:
        raise InvalidRequest(f"{url!r} names no host; give e.g. http://127.0.0.1:8080/health")
    found = http_get(url, timeout, verify_tls)
    host = _host_at(db, parts.hostname.lower())
    probe = record(db, "http", host, url, parts.port or (443 if parts.scheme.lower() == "https" else 80), found)
    return {"probe_id": probe.id, "host_id": probe.host_id, "url": url, **found}


def _service(port: int) -> str | None:
    try:
        return socket.getservbyport(port, "tcp")
    except OSError:
        return None


def probe_ports(db: Session, args: Target, ports: list[int], timeout: float) -> Result:
    """Connect to each port concurrently, so that a scan takes about one timeout in all."""
    host, address = target_of(db, args)
    try:
        # Resolved once, so that a dozen ports cost one lookup and probe the same machine.
        ip = str(socket.getaddrinfo(address, None, type=socket.SOCK_STREAM)[0][4][0])
    except (OSError, UnicodeError) as exc:
        return {
            "host_id": host.id if host else None,
            "address": address,
            "reachable": False,
            "error": describe(exc, timeout),
        }
    unique = list(dict.fromkeys(ports))
    with ThreadPoolExecutor(max_workers=min(16, len(unique))) as pool:
        found = []
        for outcome in pool.map(lambda p: tcp_connect(ip, p, timeout), unique):  # in port order
            found.append(outcome)
            progress.report(len(found), len(unique), f"{len(found)} of {len(unique)} ports probed")
    results = []
    for port, outcome in zip(unique, found, strict=True):
        record(db, "scan", host, address, port, outcome)
        detail = {k: v for k, v in outcome.items() if k != "reachable"}
        results.append({"port": port, "service": _service(port), "open": outcome["reachable"], **detail})
    return {
        "host_id": host.id if host else None,
        "address": address,
        "ip": ip,
        "open_ports": [r["port"] for r in results if r["open"]],
        "results": results,
    }


# A probe is this domain's essential read (is it up?); tier_for does not know the verb.
@tools.capability("tcp_probe", tier="core", example={"host_id": 1, "port": 5432, "timeout": 1})
def tcp_probe(ctx: CallContext, args: inputs.TcpProbe) -> Result:
    """Check whether a TCP port of a host accepts connections."""
    return probe_tcp(ctx.db, args, args.port, args.timeout)


# As tcp_probe: the essential read of a web service, whatever tier_for makes of the verb.
@tools.capability("http_probe", tier="core", example={"url": "http://127.0.0.1:8765/healthz", "timeout": 2})
def http_probe(ctx: CallContext, args: inputs.HttpProbe) -> Result:
    """GET a URL once and report its status, latency and main headers."""
    return probe_http(ctx.db, args.url, args.timeout, args.verify_tls)


@full_tools.capability("port_scan", example={"host_id": 1, "ports": [22, 80, 443, 5432, 8765], "timeout": 0.5})
def port_scan(ctx: CallContext, args: inputs.PortScan) -> Result:
    """Check which of a short list of TCP ports of a host are open."""
    return probe_ports(ctx.db, args, args.ports, args.timeout)

"""A fake Docker Engine API on loopback (or a unix socket): the JSON shapes of the endpoints the
docker domain uses, with a little state. Shared by the domain's tests and the registry walk."""

from __future__ import annotations

import json
import re
import socketserver
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

API = "/v1.43"


# A fake Engine API: the JSON shapes of the endpoints the domain uses, with a little state.


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    body: Any


def frame(stream: int, text: str) -> bytes:
    data = text.encode()
    return bytes([stream, 0, 0, 0]) + struct.pack(">I", len(data)) + data


def container(name: str, image: str, state: str, created: int) -> dict[str, Any]:
    return {
        "Id": f"{name.replace('-', '')}{'0' * 64}"[:64],
        "Names": [f"/{name}"],
        "Image": image,
        "State": state,
        "Status": "Up 2 hours" if state == "running" else "Exited (0) 3 days ago",
        "Created": created,
        "Ports": [{"IP": "0.0.0.0", "PrivatePort": 80, "PublicPort": 8080, "Type": "tcp"}] if name == "web" else [],
    }


@dataclass
class FakeEngine:
    """Holds containers web (running), worker and old-job (exited); images nginx:1.25 (used by
    web), busybox:1.36 and alpine:3.19; records every request it is sent."""

    seen: list[Seen] = field(default_factory=list)
    containers: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "web": container("web", "nginx:1.25", "running", 1767225600),
            "worker": container("worker", "busybox:1.36", "exited", 1767229200),
            "old-job": container("old-job", "busybox:1.36", "exited", 1764547200),
        }
    )
    images: list[str] = field(default_factory=lambda: ["nginx:1.25", "busybox:1.36", "alpine:3.19"])
    delay: float = 0.0

    def answer(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        self.seen.append(Seen(method, path, query, body))
        time.sleep(self.delay)
        version, _, rest = path.lstrip("/").partition("/")
        if not re.fullmatch(r"v1\.\d+", version):
            return 400, {"message": "client version is missing"}
        path = f"{API}/{rest}"  # the routes below read one version; the tests check the prefix sent
        parts = rest.split("/")
        head = parts[0]
        if head == "containers":
            return self.container_route(method, parts[1:], query, body)
        if head == "exec":
            return self.exec_route(method, parts[1:])
        if head == "images":
            return self.image_route(method, "/".join(parts[1:]), query)
        if (method, path) == ("GET", f"{API}/version"):
            return 200, {
                "Version": "24.0.7",
                "ApiVersion": "1.43",
                "MinAPIVersion": "1.12",
                "Os": "linux",
                "Arch": "amd64",
            }
        if (method, path) == ("GET", f"{API}/info"):
            running = sum(c["State"] == "running" for c in self.containers.values())
            return 200, {
                "Name": "build-host",
                "NCPU": 8,
                "MemTotal": 16_000_000_000,
                "Driver": "overlay2",
                "Containers": len(self.containers),
                "ContainersRunning": running,
                "ContainersPaused": 0,
                "ContainersStopped": len(self.containers) - running,
                "Images": len(self.images),
            }
        if (method, path) == ("GET", f"{API}/networks"):
            return 200, [
                {"Name": "host", "Id": "b" * 64, "Driver": "host", "Scope": "local", "Created": "2026-01-01T00:00:00Z"},
                {
                    "Name": "bridge",
                    "Id": "a" * 64,
                    "Driver": "bridge",
                    "Scope": "local",
                    "Created": "2026-01-01T00:00:00Z",
                },
            ]
        if (method, path) == ("GET", f"{API}/volumes"):
            return 200, {
                "Volumes": [
                    {
                        "Name": "pgdata",
                        "Driver": "local",
                        "Mountpoint": "/var/lib/docker/volumes/pgdata/_data",
                        "Scope": "local",
                    }
                ],
                "Warnings": None,
            }
        return 404, {"message": f"page not found: {path}"}

    def container_route(self, method: str, rest: list[str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        if rest == ["json"] and method == "GET":
            return 200, list(self.containers.values())
        if rest == ["prune"] and method == "POST":
            gone = [
                c["Id"] for n, c in list(self.containers.items()) if c["State"] != "running" and self.containers.pop(n)
            ]
            return 200, {"ContainersDeleted": gone, "SpaceReclaimed": 4096 * len(gone)}
        name, action = rest[0], "/".join(rest[1:])
        if name == "broken":
            return 500, {"message": "driver failed"}
        c = self.containers.get(name)
        if c is None:
            return 404, {"message": f"No such container: {name}"}
        running = c["State"] == "running"
        if (method, action) == ("GET", "json"):
            return 200, {
                "Id": c["Id"],
                "Name": f"/{name}",
                "State": {"Status": c["State"], "Running": running},
                "Config": {"Image": c["Image"]},
            }
        if (method, action) == ("GET", "logs"):
            lines = [frame(1, "ready\n"), frame(2, "warn: slow disk\n"), frame(1, "GET / 200\nGET /x 404\n")]
            return 200, b"".join(lines)
        if (method, action) == ("GET", "stats"):
            return 200, {
                "read": "2026-05-01T12:00:01Z",
                "cpu_stats": {
                    "cpu_usage": {"total_usage": 2_000_000},
                    "system_cpu_usage": 20_000_000,
                    "online_cpus": 4,
                },
                "precpu_stats": {"cpu_usage": {"total_usage": 1_000_000}, "system_cpu_usage": 10_000_000},
                "memory_stats": {"usage": 300, "limit": 1000, "stats": {"inactive_file": 100}},
                "networks": {"eth0": {"rx_bytes": 10, "tx_bytes": 20}, "eth1": {"rx_bytes": 1, "tx_bytes": 2}},
                "blkio_stats": {
                    "io_service_bytes_recursive": [{"op": "read", "value": 7}, {"op": "write", "value": 9}]
                },
                "pids_stats": {"current": 3},
            }
        if (method, action) in (("POST", "start"), ("POST", "stop")):
            wanted = "running" if action == "start" else "exited"
            if c["State"] == wanted:
                return 304, None
            c["State"] = wanted
            return 204, None
        if (method, action) == ("POST", "restart"):
            c["State"] = "running"
            return 204, None
        if (method, action) == ("POST", "exec"):
            if not running:
                return 409, {"message": f"Container {c['Id']} is not running"}
            return 201, {"Id": "e" * 64 if body["Cmd"][0] != "false" else "f" * 64}
        if (method, action) == ("DELETE", ""):
            if running and query.get("force") != "true":
                return 409, {
                    "message": f"You cannot remove a running container {c['Id']}. "
                    "Stop the container before attempting removal or force remove"
                }
            del self.containers[name]
            return 204, None
        return 404, {"message": "page not found"}

    def exec_route(self, method: str, rest: list[str]) -> tuple[int, Any]:
        failing = rest[0] == "f" * 64
        if rest[1:] == ["start"] and method == "POST":
            return 200, frame(2, "no such file\n") if failing else frame(1, "nginx version: nginx/1.25.3\n")
        if rest[1:] == ["json"] and method == "GET":
            return 200, {"ExitCode": 1 if failing else 0, "Running": False}
        return 404, {"message": "no such exec"}

    def image_route(self, method: str, name: str, query: dict[str, str]) -> tuple[int, Any]:
        if (method, name) == ("GET", "json"):
            return 200, [
                {
                    "Id": f"sha256:{i:064d}",
                    "RepoTags": [tag],
                    "Size": 1000 * (i + 1),
                    "Created": 1767225600,
                    "Containers": -1,
                }
                for i, tag in enumerate(self.images)
            ]
        if (method, name) == ("POST", "create"):
            ref = f"{query['fromImage']}:{query['tag']}"
            if query["fromImage"] == "nosuch":
                return (
                    200,
                    b'{"status":"Pulling from library/nosuch"}\r\n'
                    b'{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}\r\n',
                )
            if query["fromImage"] == "offline":
                return 200, b'{"error":"Get https://registry-1.docker.io/v2/: dial tcp: i/o timeout"}\n'
            self.images.append(ref)
            lines = [
                {"status": f"Pulling from library/{query['fromImage']}", "id": query["tag"]},
                {"status": "Digest: sha256:" + "d" * 64},
                {"status": f"Status: Downloaded newer image for {ref}"},
            ]
            return 200, "\n".join(json.dumps(x) for x in lines).encode()
        if name == "prune" and method == "POST":
            return 200, {"ImagesDeleted": [{"Deleted": "sha256:" + "c" * 64}], "SpaceReclaimed": 5}
        base, _, tail = name.rpartition("/") if name.endswith("/json") else (name, "", "")
        if base not in self.images:
            return 404, {"message": f"No such image: {base}"}
        if method == "GET" and tail == "json":
            return 200, {
                "Id": "sha256:" + "1" * 64,
                "RepoTags": [base],
                "Config": {"Cmd": ["nginx", "-g", "daemon off;"]},
            }
        if method == "DELETE":
            if any(c["Image"] == base for c in self.containers.values()) and query.get("force") != "true":
                return 409, {
                    "message": f'conflict: unable to remove repository reference "{base}" (must force) - '
                    "container is using its referenced image"
                }
            self.images.remove(base)
            return 200, [{"Untagged": base}, {"Deleted": "sha256:" + "9" * 64}]
        return 404, {"message": "page not found"}


def handler_for(fake: FakeEngine) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def handle_any(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            status, payload = fake.answer(self.command, url.path, query, json.loads(raw) if raw else None)
            data = payload if isinstance(payload, bytes) else b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = handle_any

    return Handler


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up waiting (the timeout test) is no failure of the fake


class UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self) -> Any:
        request, _ = super().get_request()
        return request, ("unix", 0)  # BaseHTTPRequestHandler expects a (host, port) address


@contextmanager
def running_engine() -> Iterator[tuple[FakeEngine, str]]:
    """A fake engine on a free loopback port; yields it and its FACADE_DOCKER_HOST value."""
    engine = FakeEngine()
    server = QuietServer(("127.0.0.1", 0), handler_for(engine))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield engine, f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

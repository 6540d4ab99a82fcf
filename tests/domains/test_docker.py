"""The docker domain: without an engine every capability says so (Unavailable, naming the address
and the setting); against a small fake Engine API on loopback (and on a unix socket) the requests
are built right, the answers are parsed right, and the engine's errors become domain errors."""

from __future__ import annotations

import json
import re
import socketserver
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine

from domains.docker import domain
from facade.capability import CallContext
from facade.db import make_engine, session_factory
from facade.kit import Conflict, InvalidRequest, NotFound, Unavailable
from facade.migrate import upgrade
from facade.registry import Registry

API = "/v1.43"
NO_ENGINE = "docker engine not reachable at {host}; start Docker or set FACADE_DOCKER_HOST"


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


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEngine]:
    """A fake engine on a free loopback port, with FACADE_DOCKER_HOST pointing at it."""
    engine = FakeEngine()
    server = QuietServer(("127.0.0.1", 0), handler_for(engine))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    monkeypatch.setenv("FACADE_DOCKER_HOST", f"tcp://127.0.0.1:{server.server_address[1]}")
    yield engine
    server.shutdown()
    server.server_close()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Engine]:
    """The domain has no tables, but calls still get a migrated database, as the server does."""
    engine = make_engine(f"sqlite:///{tmp_path / 'facade.db'}")
    upgrade(engine, Registry([domain]))
    yield engine
    engine.dispose()


def call(action: str, /, **args: Any) -> Any:
    cap = next(c for c in domain.capabilities if c.action == action)
    return cap.handler(CallContext(agent="test", conversation="c1"), cap.input_model.model_validate(args))


def walk(db: Engine) -> list[tuple[str, Any]]:
    """Every capability's example in registration order, through the parsed model the server
    validates against; returns (name, result or exception)."""
    outcomes: list[tuple[str, Any]] = []
    for cap in domain.capabilities:
        assert cap.example is not None, cap.name
        ctx = CallContext(agent="test", conversation="c1", session_factory=session_factory(db))
        try:
            args = cap.parsed_model.model_validate({**cap.example, "auth_token": "", "conversation_id": "c1"})
            outcomes.append((cap.name, cap.handler(ctx, args)))
            if ctx.opened_db is not None:
                ctx.opened_db.commit()
        except Exception as exc:  # collected, so one failure shows every other one too
            outcomes.append((cap.name, exc))
        finally:
            if ctx.opened_db is not None:
                ctx.opened_db.close()
    return outcomes


class TestDeclaration:
    """The domain is an infrastructure domain with a real catalogue in both tiers."""

    def test_floors_and_tiers(self) -> None:
        tiers = [c.tier for c in domain.capabilities]
        assert domain.default_mode == "core" and domain.migrations is None and domain.seed is None
        assert len(tiers) >= 15 and tiers.count("core") >= 8 and tiers.count("full") >= 6
        assert 0.5 <= tiers.count("core") / len(tiers) <= 0.65

    def test_descriptions_are_one_short_sentence(self) -> None:
        for cap in domain.capabilities:
            assert cap.description.endswith(".") and ". " not in cap.description, cap.name
            assert len(cap.description) <= 100 and "token" not in cap.description.lower(), cap.name

    def test_raw_dumps_and_bulk_are_full(self) -> None:
        tiers = {c.action: c.tier for c in domain.capabilities}
        assert (
            tiers["inspect_container"] == tiers["inspect_image"] == tiers["prune"] == tiers["container_exec"] == "full"
        )
        assert tiers["container_list"] == tiers["container_logs"] == "core"

    def test_destructive_capabilities_are_marked(self) -> None:
        marked = {c.action for c in domain.capabilities if c.annotations.destructive}
        assert marked == {"container_remove", "image_remove", "prune", "container_exec"}


class TestWithoutEngine:
    """No engine runs here: every capability raises Unavailable naming the address and setting."""

    def test_walk_raises_unavailable_for_every_capability(
        self, db: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        host = f"unix://{tmp_path / 'docker.sock'}"
        monkeypatch.setenv("FACADE_DOCKER_HOST", host)
        outcomes = walk(db)
        assert len(outcomes) == len(domain.capabilities)
        for name, outcome in outcomes:
            assert isinstance(outcome, Unavailable), f"{name}: {outcome!r}"
            assert str(outcome) == "unavailable: " + NO_ENGINE.format(host=host), name

    def test_default_address(self, monkeypatch: pytest.MonkeyPatch) -> None:
        if Path("/var/run/docker.sock").exists():
            pytest.skip("a docker socket exists on this machine")
        monkeypatch.delenv("FACADE_DOCKER_HOST", raising=False)
        with pytest.raises(Unavailable) as caught:
            call("engine_info")
        assert str(caught.value).endswith(NO_ENGINE.format(host="unix:///var/run/docker.sock"))

    def test_a_closed_port_and_a_bad_address(self, monkeypatch: pytest.MonkeyPatch) -> None:
        with socketserver.TCPServer(("127.0.0.1", 0), socketserver.BaseRequestHandler) as probe:
            port = probe.server_address[1]  # bound, then closed below: nothing listens there
        monkeypatch.setenv("FACADE_DOCKER_HOST", f"tcp://127.0.0.1:{port}")
        with pytest.raises(Unavailable, match=f"not reachable at tcp://127.0.0.1:{port}"):
            call("container_list")
        monkeypatch.setenv("FACADE_DOCKER_HOST", "ftp://127.0.0.1:21")
        with pytest.raises(Unavailable, match="is not a docker address; an operator must set it"):
            call("container_list")
        monkeypatch.setenv("FACADE_DOCKER_API_VERSION", "latest")
        with pytest.raises(Unavailable, match="FACADE_DOCKER_API_VERSION"):
            call("container_list")


class TestWalkAgainstAnEngine:
    """Against the fake engine every example succeeds, in order, with JSON-friendly results."""

    def test_every_example_succeeds(self, fake: FakeEngine, db: Engine) -> None:
        outcomes = walk(db)
        failures = [f"{n}: {type(o).__name__}: {o}" for n, o in outcomes if isinstance(o, Exception)]
        assert not failures, "\n".join(failures)
        for name, result in outcomes:
            assert isinstance(result, dict) and result, name
            json.dumps(result)
        assert "old-job" not in fake.containers and "alpine:3.19" not in fake.images
        assert fake.containers["worker"]["State"] == "running"

    def test_over_a_unix_socket(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        engine, path = FakeEngine(), tmp_path / "docker.sock"
        server = UnixHTTPServer(str(path), handler_for(engine))
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        try:
            monkeypatch.setenv("FACADE_DOCKER_HOST", f"unix://{path}")
            assert call("container_list")["total"] == 3
            assert engine.seen[-1].path == f"{API}/containers/json"
        finally:
            server.shutdown()
            server.server_close()


class TestRequests:
    """Methods, paths, query parameters and bodies are what the Engine API expects."""

    def test_list_filters(self, fake: FakeEngine) -> None:
        call("container_list", state="exited", name="work", include_stopped=False)
        sent = fake.seen[-1]
        assert (sent.method, sent.path, sent.query["all"]) == ("GET", f"{API}/containers/json", "true")
        assert json.loads(sent.query["filters"]) == {"status": ["exited"], "name": ["work"]}
        call("container_list", include_stopped=False)
        assert fake.seen[-1].query == {"all": "false"}
        call("image_list", reference="nginx:*")
        assert json.loads(fake.seen[-1].query["filters"]) == {"reference": ["nginx:*"]}

    def test_logs_parameters(self, fake: FakeEngine) -> None:
        call("container_logs", container="web", tail=5, since="2026-05-01T12:00:00Z", stderr=False, timestamps=True)
        sent = fake.seen[-1]
        assert sent.path == f"{API}/containers/web/logs"
        assert sent.query == {
            "stdout": "true",
            "stderr": "false",
            "tail": "5",
            "timestamps": "true",
            "since": "1777636800",
        }

    def test_lifecycle_and_remove_parameters(self, fake: FakeEngine) -> None:
        call("container_stop", container="web", wait=3)
        assert (fake.seen[-1].method, fake.seen[-1].path, fake.seen[-1].query) == (
            "POST",
            f"{API}/containers/web/stop",
            {"t": "3"},
        )
        call("container_restart", container="web", wait=0)
        assert (fake.seen[-1].path, fake.seen[-1].query) == (f"{API}/containers/web/restart", {"t": "0"})
        call("container_remove", container="web", force=True, volumes=True)
        assert (fake.seen[-1].method, fake.seen[-1].path, fake.seen[-1].query) == (
            "DELETE",
            f"{API}/containers/web",
            {"force": "true", "v": "true"},
        )

    def test_exec_body(self, fake: FakeEngine) -> None:
        call("container_exec", container="web", command=["ls", "-l"], workdir="/etc")
        create, start, state = fake.seen[-3:]
        assert (create.method, create.path) == ("POST", f"{API}/containers/web/exec")
        assert create.body == {
            "Cmd": ["ls", "-l"],
            "AttachStdout": True,
            "AttachStderr": True,
            "Tty": False,
            "WorkingDir": "/etc",
        }
        assert (start.path, start.body) == (f"{API}/exec/{'e' * 64}/start", {"Detach": False, "Tty": False})
        assert (state.method, state.path) == ("GET", f"{API}/exec/{'e' * 64}/json")

    def test_pull_splits_the_reference(self, fake: FakeEngine) -> None:
        for image, expected in [
            ("busybox", ("busybox", "latest")),
            ("nginx:1.25", ("nginx", "1.25")),
            ("registry.local:5000/team/app", ("registry.local:5000/team/app", "latest")),
            ("registry.local:5000/team/app:2.1", ("registry.local:5000/team/app", "2.1")),
        ]:
            call("image_pull", image=image)
            assert (fake.seen[-1].method, fake.seen[-1].path) == ("POST", f"{API}/images/create")
            assert (fake.seen[-1].query["fromImage"], fake.seen[-1].query["tag"]) == expected

    def test_image_paths_keep_the_repository_slashes(self, fake: FakeEngine) -> None:
        fake.images.append("team/app:2.1")
        assert call("inspect_image", image="team/app:2.1")["image"]["RepoTags"] == ["team/app:2.1"]
        assert fake.seen[-1].path == f"{API}/images/team/app:2.1/json"

    def test_prune_images_filter(self, fake: FakeEngine) -> None:
        result = call("prune", what="images", all_images=True)
        assert (fake.seen[-1].path, json.loads(fake.seen[-1].query["filters"])) == (
            f"{API}/images/prune",
            {"dangling": ["false"]},
        )
        assert result == {"what": "images", "deleted": ["c" * 12], "space_reclaimed_bytes": 5}

    def test_names_that_could_reach_other_paths_are_refused(self) -> None:
        for action, args in [
            ("container_start", {"container": "../images/json"}),
            ("container_start", {"container": "web?force=1"}),
            ("inspect_image", {"image": "nginx/../../containers/web"}),
            ("container_exec", {"container": "web", "command": []}),
        ]:
            cap = next(c for c in domain.capabilities if c.action == action)
            with pytest.raises(ValidationError):
                cap.input_model.model_validate(args)


class TestResponses:
    """Engine answers become short, correct summaries."""

    def test_container_summary(self, fake: FakeEngine) -> None:
        result = call("container_list", limit=2, offset=0)
        web = result["containers"][0]
        assert result["total"] == 3 and len(result["containers"]) == 2
        assert web == {
            "id": "web" + "0" * 9,
            "name": "web",
            "image": "nginx:1.25",
            "state": "running",
            "status": "Up 2 hours",
            "created": "2026-01-01T00:00:00+00:00",
            "ports": ["0.0.0.0:8080->80/tcp"],
        }

    def test_logs_keep_the_order_of_both_streams(self, fake: FakeEngine) -> None:
        result = call("container_logs", container="web", tail=3)
        assert result["lines"] == ["warn: slow disk", "GET / 200", "GET /x 404"]

    def test_stats_are_computed_like_the_cli(self, fake: FakeEngine) -> None:
        stats = call("container_stats", container="web")["stats"]
        assert stats["cpu_percent"] == 40.0  # 1e6 / 1e7 of the host, times 4 CPUs
        assert (stats["memory_bytes"], stats["memory_percent"]) == (200, 20.0)  # page cache left out
        assert (stats["network_rx_bytes"], stats["network_tx_bytes"]) == (11, 22)
        assert (stats["block_read_bytes"], stats["block_write_bytes"], stats["pids"]) == (7, 9, 3)

    def test_exec_output_and_exit_code(self, fake: FakeEngine) -> None:
        ok = call("container_exec", container="web", command=["nginx", "-v"])
        assert (ok["exit_code"], ok["stdout"], ok["stderr"]) == (0, "nginx version: nginx/1.25.3\n", "")
        failed = call("container_exec", container="web", command=["false"])
        assert (failed["exit_code"], failed["stdout"], failed["stderr"]) == (1, "", "no such file\n")

    def test_start_and_stop_report_no_change(self, fake: FakeEngine) -> None:
        assert call("container_start", container="web")["changed"] is False  # 304
        assert call("container_stop", container="worker")["changed"] is False
        assert call("container_stop", container="web")["changed"] is True

    def test_pull_and_remove_results(self, fake: FakeEngine) -> None:
        pulled = call("image_pull", image="busybox:1.36")
        assert pulled == {
            "image": "busybox:1.36",
            "digest": "sha256:" + "d" * 64,
            "status": "Status: Downloaded newer image for busybox:1.36",
            "changed": True,
        }
        removed = call("image_remove", image="alpine:3.19")
        assert removed == {"image": "alpine:3.19", "untagged": ["alpine:3.19"], "deleted": ["9" * 12]}

    def test_engine_info(self, fake: FakeEngine) -> None:
        info = call("engine_info")["engine"]
        assert (info["server_version"], info["api_version"], info["cpus"]) == ("24.0.7", "1.43", 8)
        assert info["containers"] == {"total": 3, "running": 1, "paused": 0, "stopped": 2}

    def test_networks_and_volumes_sorted_and_paged(self, fake: FakeEngine) -> None:
        assert [n["name"] for n in call("network_list")["networks"]] == ["bridge", "host"]
        assert call("network_list", offset=1)["networks"][0]["id"] == "b" * 12
        assert call("volume_list")["volumes"][0]["name"] == "pgdata"


class TestErrors:
    """The engine's error statuses become domain errors that say what to change."""

    def test_missing_container_and_image(self, fake: FakeEngine) -> None:
        with pytest.raises(
            NotFound, match=r"container 'ghost' does not exist; list containers with docker\.container_list"
        ):
            call("container_logs", container="ghost")
        with pytest.raises(NotFound, match=r"image 'ghost:1' does not exist.*docker\.image_pull"):
            call("inspect_image", image="ghost:1")

    def test_conflicts(self, fake: FakeEngine) -> None:
        with pytest.raises(
            Conflict, match=r"cannot remove a running container.*stop it with docker\.container_stop.*force=true"
        ):
            call("container_remove", container="web")
        assert "web" in fake.containers
        with pytest.raises(Conflict, match=r"is not running; start it with docker\.container_start"):
            call("container_exec", container="worker", command=["ls"])
        with pytest.raises(Conflict, match=r"container is using its referenced image; remove the containers"):
            call("image_remove", image="nginx:1.25")

    def test_failed_pulls(self, fake: FakeEngine) -> None:
        with pytest.raises(NotFound, match=r"'nosuch:1' was not found by its registry \(manifest unknown\)"):
            call("image_pull", image="nosuch:1")
        with pytest.raises(Unavailable, match=r"could not pull 'offline:1'.*retry later"):
            call("image_pull", image="offline:1")

    def test_server_errors_bad_requests_and_timeouts(self, fake: FakeEngine, monkeypatch: pytest.MonkeyPatch) -> None:
        with pytest.raises(Unavailable, match=r"failed \(HTTP 500: driver failed\); retry later"):
            call("inspect_container", container="broken")
        with pytest.raises(InvalidRequest, match="stdout and stderr are both false"):
            call("container_logs", container="web", stdout=False, stderr=False)
        monkeypatch.setenv("FACADE_DOCKER_API_VERSION", "1.41")
        fake.seen.clear()
        call("engine_info")
        assert fake.seen[0].path == "/v1.41/version"
        monkeypatch.setenv("FACADE_DOCKER_TIMEOUT", "0.2")
        fake.delay = 0.6
        with pytest.raises(
            Unavailable,
            match=r"did not answer within 0.2s; retry later, or an operator may raise FACADE_DOCKER_TIMEOUT",
        ):
            call("network_list")

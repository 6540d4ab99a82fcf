"""The docker domain: without an engine every capability says so (Unavailable, naming the address
and the setting); against a small fake Engine API on loopback (and on a unix socket) the requests
are built right, the answers are parsed right, and the engine's errors become domain errors."""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine

from domains.docker import domain
from facade.kit import Conflict, InvalidRequest, NotFound, Unavailable
from tests.domains.harness import SHUFFLES, DomainHarness, sqlite_engine
from tests.fakes.docker_engine import API, FakeEngine, UnixHTTPServer, handler_for, running_engine

docker = DomainHarness(domain)
NO_ENGINE = "docker engine not reachable at {host}; start Docker or set FACADE_DOCKER_HOST"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEngine]:
    """A fake engine on a free loopback port, with FACADE_DOCKER_HOST pointing at it."""
    with running_engine() as (engine, host):
        monkeypatch.setenv("FACADE_DOCKER_HOST", host)
        yield engine


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Engine]:
    """The domain has no tables, but calls still get a migrated database, as the server does."""
    engine = docker.migrated(sqlite_engine(tmp_path / "facade.db"))
    yield engine
    engine.dispose()


def call(action: str, /, **args: Any) -> Any:
    return docker.call(None, action, **args)


class TestDeclaration:
    """The domain is an infrastructure domain with a real catalogue in both tiers."""

    def test_floors_and_tiers(self) -> None:
        assert domain.default_mode == "core" and domain.migrations is None and domain.seed is None
        tiers = docker.assert_tiers(at_least=15, core_share=(0.5, 0.65))
        assert tiers.count("core") >= 8 and tiers.count("full") >= 6

    def test_descriptions_are_one_short_sentence(self) -> None:
        docker.assert_descriptions_are_one_sentence(max_length=100)

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
        outcomes = docker.walk(db)
        assert len(outcomes) == len(domain.capabilities)
        for name, outcome in outcomes.items():
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
    """Against the fake engine every example succeeds, in any order, with JSON-friendly results."""

    def test_every_example_succeeds(self, fake: FakeEngine, db: Engine) -> None:
        docker.assert_walk_succeeds(db)
        assert "old-job" not in fake.containers and "alpine:3.19" not in fake.images
        assert fake.containers["worker"]["State"] == "running"

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, fake: FakeEngine, db: Engine, seed: int) -> None:
        docker.assert_walk_succeeds(db, shuffle=seed)
        assert "old-job" not in fake.containers and "alpine:3.19" not in fake.images
        assert fake.containers["web"]["State"] == "running"  # only read and exec'd in

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
            with pytest.raises(ValidationError):
                docker.capability(action).input_model.model_validate(args)


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

"""`facade serve --workers 2`: two processes on one port share what they must through Redis — an
elevation approved through one worker is seen by calls through the other, and a handshake-era
session opened on one continues through the other. Each worker is reached directly on the port
of its own it logs (`worker` lines), so the test knows which worker answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from tests.support import DEV, REDIS_URL, ServerProcess, base_env, emptied_redis, legacy_open

from benchkit import legacy_body, modern_body, modern_headers

# A database of its own, emptied first: card ids come from each run's fresh database, so cards a
# previous run left in Redis would collide with this run's.
WORKERS_REDIS = REDIS_URL.rsplit("/", 1)[0] + "/14"


def redis_reachable() -> None:
    emptied_redis(14)


@dataclass
class Worker:
    base: str

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, list[Worker]]]:
    redis_reachable()
    argv = [sys.executable, "-m", "facade.cli", "serve", "--workers", "2"]
    server = ServerProcess(tmp_path_factory.mktemp("workers"), env={"FACADE_REDIS_URL": WORKERS_REDIS}, argv=argv).start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            events = [json.loads(line) for line in server.log().splitlines() if '"worker"' in line]
            urls = [event["replica_url"] for event in events if event.get("event") == "worker"]
            if len(urls) == 2:
                break
            time.sleep(0.2)
        assert len(urls) == 2, server.log()
        found = [Worker(url) for url in urls]
        for worker in found:  # each up on its own port too
            while httpx2.get(f"{worker.base}/healthz", timeout=5).status_code != 200:
                time.sleep(0.2)
        yield server, found
    finally:
        server.stop()


def call(worker: Worker, name: str, arguments: dict, conversation: str, agent: str = "francis") -> dict:  # type: ignore[type-arg]
    headers = {**modern_headers("tools/call", name), "Authorization": f"Bearer {DEV[agent]}", "X-Conversation-Id": conversation}
    response = httpx2.post(worker.url, content=modern_body("tools/call", {"name": name, "arguments": arguments}), headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()["result"]


def test_two_workers_answer_on_one_port(workers: tuple[ServerProcess, list[Worker]]) -> None:
    server, found = workers
    assert len({w.base for w in found}) == 2
    children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
    assert len(children) == 2
    assert httpx2.get(f"{server.base}/healthz", timeout=10).status_code == 200


def test_an_elevation_approved_through_one_worker_is_seen_through_the_other(workers: tuple[ServerProcess, list[Worker]]) -> None:
    _, (one, other) = workers
    conversation = f"workers-{uuid.uuid4().hex[:8]}"
    before = call(other, "files.tree", {"path": "/"}, conversation)
    assert before["isError"] and "unknown tool" in before["content"][0]["text"]  # files is core for francis
    held = call(one, "skills.elevate", {"domain": "files", "reason": "seen by both workers"}, conversation)
    assert not held["isError"], held
    card_id = held["structuredContent"]["card_id"]
    operator = {"Authorization": f"Bearer {DEV['operator']}"}
    approved = httpx2.post(f"{other.base}/api/cards/{card_id}/approve", headers=operator, json={"reason": "ok", "by": "tests"}, timeout=60)
    assert approved.status_code == 200 and approved.json()["card"]["outcome"]["ok"], approved.text
    for worker in (one, other):
        after = call(worker, "files.tree", {"path": "/"}, conversation)
        assert "unknown tool" not in after["content"][0]["text"], (worker, after)


def test_a_session_opened_on_one_worker_continues_on_the_other(workers: tuple[ServerProcess, list[Worker]]) -> None:
    _, (one, other) = workers
    with httpx2.Client(timeout=60) as client:
        session = legacy_open(client, one.url, {"Authorization": f"Bearer {DEV['atlas']}"})
        body = legacy_body("tools/call", {"name": "projects.project_get", "arguments": {"project_id": 1}}, 3)
        response = client.post(other.url, content=body, headers=session)
    assert response.status_code == 200, response.text
    assert '"isError":false' in response.text


def test_more_than_one_worker_needs_redis(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "FACADE_REDIS_URL"}
    done = subprocess.run([sys.executable, "-m", "facade.cli", "serve", "--workers", "2", "--port", "0"],
                          env={**env, **base_env(tmp_path)}, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "--workers 2 needs FACADE_REDIS_URL" in done.stderr + done.stdout


def test_workers_threads_are_left_free(workers: tuple[ServerProcess, list[Worker]]) -> None:
    """FACADE_CPU_AFFINITY=auto pins a lone server only (facade/affinity.py says why)."""
    from tests.test_affinity import cpus_of_threads

    server, _ = workers
    allowed = Path(f"/proc/{os.getpid()}/status").read_text().split("Cpus_allowed_list:")[1].split()[0]
    children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
    assert [set(cpus_of_threads(int(pid)).values()) for pid in children] == [{allowed}, {allowed}]
    assert "cpu.pinned" not in server.log()

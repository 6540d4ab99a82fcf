"""`facade stdio` answers its greeting before the rest is built (issue 17): the handshake, ping
and server discovery at once, with the very answer a built server gives; the tool listing once
the service is built; any other request once migrating and seeding are done. A preparation that
fails is each waiting request's JSON-RPC error and a line on stderr; a service that cannot be
built stops the process with one line.

Both are held by tests/fixtures/held_seed_domain.py, whose import (the service's build) and seed
(the database's preparation) wait for files this test writes: which answers arrive before a
file exists shows what waited, with no timing."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, INTERNAL_ERROR, PROTOCOL_VERSION_META_KEY

from tests.support import base_env

BOUND_SECONDS = 120  # how long an answer may take on a loaded machine; never a measure
CLIENT = {"name": "test", "version": "0"}
INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT}
DISCOVER = {"_meta": {PROTOCOL_VERSION_META_KEY: "2026-07-28", CLIENT_INFO_META_KEY: CLIENT, CLIENT_CAPABILITIES_META_KEY: {}}}
A_CALL = {"name": "files.list", "arguments": {"path": ""}}


class Stdio:
    """`facade stdio --agent francis` on a fresh data folder, held domain loaded; JSON-RPC lines."""

    def __init__(self, workdir: Path, *, hold_build: bool = False, **env: str) -> None:
        self.workdir = workdir
        self.release = workdir / "release"
        self.build_release = workdir / "release-build"
        self.stderr = workdir / "stderr.log"
        full = {
            **os.environ, **base_env(workdir), "FACADE_DOMAINS": "tests.fixtures.held_seed_domain",
            "HELD_SEED_RELEASE": str(self.release), **env,
        }
        if hold_build:
            full["HELD_BUILD_RELEASE"] = str(self.build_release)
        with open(self.stderr, "wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "facade.cli", "stdio", "--agent", "francis"],
                cwd=workdir, env=full, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
            )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, method: str, params: dict[str, Any] | None = None, id: int | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if id is not None:
            message["id"] = id
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        line = self.lines.get(timeout=BOUND_SECONDS)
        assert line, f"facade stdio ended:\n{self.stderr.read_text()[-3000:]}"
        return json.loads(line)

    def answers_until(self, id: int) -> dict[int, dict[str, Any]]:
        """Every answer up to and including the one to `id`, by id."""
        seen: dict[int, dict[str, Any]] = {}
        while id not in seen:
            message = self.answer()
            if "id" in message:
                seen[message["id"]] = message
        return seen

    def handshake(self) -> None:
        self.send("initialize", INITIALIZE, id=1)
        assert "result" in self.answers_until(1)[1]
        self.send("notifications/initialized")

    def logged(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stderr.read_text().splitlines() if line.startswith("{")]

    def wait_logged(self, event: str) -> None:
        """Until stderr has `event` (a bound, never a measure)."""
        deadline = time.monotonic() + BOUND_SECONDS
        while not any(e["event"] == event for e in self.logged()):
            assert self.process.poll() is None, f"facade stdio ended:\n{self.stderr.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no {event} in {BOUND_SECONDS}s:\n{self.stderr.read_text()[-3000:]}"
            time.sleep(0.05)

    def close(self) -> None:
        self.build_release.touch()
        self.release.touch()
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=BOUND_SECONDS)


@pytest.fixture
def stdio(tmp_path: Path) -> Iterator[Stdio]:
    server = Stdio(tmp_path)
    yield server
    server.close()


class TestWhilePreparing:
    """The seed is held: what is answered, and what waits."""

    def test_the_handshake_ping_and_listing_are_answered_and_a_call_waits(self, stdio: Stdio) -> None:
        stdio.handshake()
        stdio.send("tools/call", A_CALL, id=2)
        stdio.send("ping", id=3)
        stdio.send("tools/list", id=4)
        early = stdio.answers_until(4)
        assert early[3]["result"] == {} and any(t["name"] == "files.list" for t in early[4]["result"]["tools"])
        assert 2 not in early  # the call waits for the database, whose seed is still held
        stdio.release.touch()
        called = stdio.answers_until(2)[2]
        assert called["result"]["isError"] is False, called

    def test_server_discovery_is_answered(self, stdio: Stdio) -> None:
        stdio.send("server/discover", DISCOVER, id=1)
        discovered = stdio.answers_until(1)[1]
        assert "2026-07-28" in discovered["result"]["supportedVersions"], discovered  # the seed still held


class TestBeforeTheService:
    """The service's build is held: the greeting is answered, and answered as a built server
    answers it; the listing waits for the service."""

    def test_the_greeting_is_the_built_servers(self, tmp_path: Path) -> None:
        held = Stdio(tmp_path / "held", hold_build=True)
        try:
            held.send("initialize", INITIALIZE, id=1)
            early = held.answers_until(1)[1]
            assert not any(e["event"] == "start.service_built" for e in held.logged())  # it is still held
        finally:
            held.close()
        built = Stdio(tmp_path / "built")
        try:
            built.wait_logged("start.service_built")
            built.send("initialize", INITIALIZE, id=1)
            late = built.answers_until(1)[1]
        finally:
            built.close()
        assert "result" in early and early == late
        capabilities = early["result"]["capabilities"]
        assert {"tools", "resources", "prompts", "completions"} <= set(capabilities), capabilities

    def test_ping_is_answered_and_the_listing_waits_for_the_service(self, tmp_path: Path) -> None:
        stdio = Stdio(tmp_path, hold_build=True)
        try:
            stdio.handshake()
            stdio.send("tools/list", id=2)
            stdio.send("ping", id=3)
            early = stdio.answers_until(3)
            assert early[3]["result"] == {} and 2 not in early  # the listing waits for the held build
            stdio.build_release.touch()
            listed = stdio.answers_until(2)[2]
            assert any(t["name"] == "files.list" for t in listed["result"]["tools"]), listed
        finally:
            stdio.close()

    def test_a_database_that_is_down_stops_it_with_one_line(self, tmp_path: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
        stdio = Stdio(tmp_path, FACADE_DATABASE_URL=f"postgresql+psycopg://sam:pw@127.0.0.1:{port}/facade")
        try:
            stdio.send("initialize", INITIALIZE, id=1)
            assert stdio.process.wait(timeout=BOUND_SECONDS) == 1  # without waiting for the client to leave
        finally:
            stdio.close()
        text = stdio.stderr.read_text()
        assert "Traceback" not in text, text
        [line] = [line for line in text.splitlines() if not line.startswith("{")]
        assert line.startswith(f"error: the database at postgresql+psycopg://sam:***@127.0.0.1:{port}/facade cannot be reached")


class TestWhenPreparingFails:
    """A failed preparation is the waiting request's error and stderr's line, not a silence."""

    def test_a_waiting_call_gets_the_reason(self, tmp_path: Path) -> None:
        server = Stdio(tmp_path, HELD_SEED_FAILS="1")
        try:
            server.handshake()
            server.send("tools/call", A_CALL, id=2)
            error = server.answers_until(2)[2]["error"]
            server.send("ping", id=3)  # still answering
            assert server.answers_until(3)[3]["result"] == {}
        finally:
            server.close()
        assert error["code"] == INTERNAL_ERROR
        assert "could not be prepared" in error["message"] and "told to fail" in error["message"], error
        logged = [json.loads(line) for line in server.stderr.read_text().splitlines() if line.startswith("{")]
        assert any(e["event"] == "database.prepare_failed" and "told to fail" in e["error"] for e in logged)

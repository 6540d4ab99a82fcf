"""The lean load generator of scripts/bench_throughput.py: keep-alive connections, one request in
flight on each (no pipelining), in a process of its own, so that the client costs the server under
test as little CPU as it can.

Each connection sends its own pre-encoded request bytes (a 2025-11-25 connection carries its own
session's id) back to back. Responses are framed by httptools (Content-Length or chunked, as each
server sends them, SSE or JSON) and every one is checked by benchkit's `answer_failure`, the same
check as the httpx2 path's: a verdict is kept per distinct (status, Content-Type, body), so a body
seen before costs a dictionary look-up instead of a JSON parse.

The parent (`run_block`) gives the plan as JSON on stdin; the generator connects, sends one
untimed call on each connection (a first use is not throughput), says `ready`, waits for `go` (the
parent reads the server's CPU between the two), runs the timed block, writes its tally as JSON to the file the plan names (calls, elapsed, every
latency, its own CPU over the block, the errors) and says `done`.

Measured 2026-12-04 on a busy 2-core machine (bench_throughput.py --short): 0.01-0.03 ms client
CPU per call (0.11 at worst, behind a slow server's SSE) where the httpx2 clients took 0.63-1.21 ms.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httptools

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchkit import answer_failure  # noqa: E402

MAX_VERDICTS = 1024  # distinct answers remembered; past that each is parsed afresh
MAX_ERRORS_KEPT = 5
PATIENCE = 120.0  # seconds an answer may take before its connection counts as failed (httpx2's timeout here)


@dataclass
class Tally:
    """What the connections share: when to stop, what they saw."""

    stop: float = 0.0
    timing: bool = False
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_errors: list[str] = field(default_factory=list)
    verdicts: dict[tuple[int, bytes, bytes], str | None] = field(default_factory=dict)

    def error(self, why: str) -> None:
        self.errors += 1
        if len(self.first_errors) < MAX_ERRORS_KEPT:
            self.first_errors.append(why)

    def answer(self, status: int, content_type: bytes, body: bytes) -> None:
        key = (status, content_type, body)
        if key in self.verdicts:
            why = self.verdicts[key]
        else:
            why = answer_failure(status, content_type.decode("latin-1"), body.decode("utf-8", "replace"))
            if len(self.verdicts) < MAX_VERDICTS:
                self.verdicts[key] = why
        if why is not None:
            self.error(why)


class Connection(asyncio.Protocol):
    """One client: sends its request, waits for the whole answer, checks it, sends again."""

    def __init__(self, request: bytes, tally: Tally, idle: asyncio.Future[None]) -> None:
        self.request = request
        self.tally = tally
        self.idle = idle  # resolved when the connection has stopped sending
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.content_type = b""
        self.chunks: list[bytes] = []
        self.sent = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is one without subclassing it

    def send(self) -> None:
        assert self.transport is not None
        self.sent = time.perf_counter()
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self.fail(f"unparseable response: {exc}")

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == b"content-type":
            self.content_type = value

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        now = time.perf_counter()
        tally = self.tally
        if tally.timing:
            tally.latencies.append(now - self.sent)
        tally.answer(self.parser.get_status_code(), self.content_type, b"".join(self.chunks))
        self.chunks = []
        self.content_type = b""
        if tally.timing and now < tally.stop:
            self.send()
        elif not self.idle.done():
            self.idle.set_result(None)

    def fail(self, why: str) -> None:
        self.tally.error(why)
        if self.transport is not None:
            self.transport.close()
        if not self.idle.done():
            self.idle.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.idle.done():
            self.fail(f"connection lost: {exc or 'closed by the server'}")


async def generate(plan: dict[str, Any]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    tally = Tally()
    requests = [base64.b64decode(r) for r in plan["requests"]]

    async def connect(request: bytes, port: int) -> Connection:
        _, conn = await loop.create_connection(
            lambda: Connection(request, tally, loop.create_future()), plan["host"], port
        )
        return conn

    conns = list(await asyncio.gather(*(connect(r, port) for r, port in zip(requests, plan["ports"], strict=True))))
    for conn in conns:  # the untimed first call
        conn.send()
    await settled(conns, PATIENCE)
    print("ready", flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)  # "go"
    for conn in conns:
        conn.idle = loop.create_future()
    cpu = time.process_time()
    started = time.perf_counter()
    tally.stop, tally.timing = started + plan["seconds"], True
    for conn in conns:
        conn.send()
    await settled(conns, plan["seconds"] + PATIENCE)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    for conn in conns:
        if conn.transport is not None:
            conn.transport.close()
    return {"latencies": tally.latencies, "elapsed": elapsed, "cpu": cpu,
            "errors": tally.errors, "first_errors": tally.first_errors}


async def settled(conns: list[Connection], timeout: float) -> None:
    """Until every connection has stopped sending; one still waiting after `timeout` fails."""
    await asyncio.wait([c.idle for c in conns], timeout=timeout)
    for conn in conns:
        if not conn.idle.done():
            conn.fail(f"no answer in {timeout:.0f} s")


def raw_request(host: str, port: int, path: str, headers: dict[str, str], body: bytes) -> bytes:
    """A whole HTTP/1.1 POST, as bytes on the wire."""
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", *(f"{k}: {v}" for k, v in headers.items()),
             f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@dataclass
class Generated:
    """A block's tally, as the generator wrote it."""

    latencies: list[float]
    elapsed: float
    cpu: float
    errors: list[str]
    error_count: int


def run_block(host: str, port: int | list[int], requests: list[bytes], seconds: float, cpu_probe: Any) -> tuple[Generated, float]:
    """Runs one block in a generator process; returns its tally and `cpu_probe()`'s rise over the
    timed part (the server's CPU, read by the caller's probe). `port` may be one per request: each
    connection to its own server, as a balancer hands connections to replicas. The tally (up to ~50,000
    latencies, a megabyte of JSON) comes back in a file, not on the pipe: once, in a full run,
    the line read from the pipe ended mid-number (2026-12-04), which a file written whole and
    then renamed cannot do; the pipe carries only "ready" and "done"."""
    with tempfile.TemporaryDirectory(prefix="facade-loadgen-") as folder:
        tally_file = Path(folder) / "tally.json"
        ports = port if isinstance(port, list) else [port] * len(requests)
        plan = {"host": host, "ports": ports, "seconds": seconds, "tally": str(tally_file),
                "requests": [base64.b64encode(r).decode() for r in requests]}
        proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(plan) + "\n")
        proc.stdin.flush()
        if proc.stdout.readline().strip() != "ready":
            proc.wait(30)
            raise RuntimeError(f"the load generator did not start (exit {proc.returncode})")
        before = cpu_probe()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        said = proc.stdout.readline().strip()
        server_cpu = cpu_probe() - before
        proc.wait(30)
        if said != "done" or not tally_file.exists():
            raise RuntimeError(f"the load generator stopped mid-block (exit {proc.returncode}, said {said[:200]!r})")
        out = json.loads(tally_file.read_text())
    return Generated(out["latencies"], out["elapsed"], out["cpu"], out["first_errors"], out["errors"]), server_cpu


def main() -> None:
    plan = json.loads(sys.stdin.readline())
    try:
        import uvloop

        run = uvloop.run
    except ImportError:  # the same fallback as facade/cli/httpstack.py
        run = asyncio.run
    tally = Path(plan["tally"])
    partial = tally.with_suffix(".partial")
    partial.write_text(json.dumps(run(generate(plan))))
    partial.rename(tally)  # whole or not at all
    print("done", flush=True)


if __name__ == "__main__":
    main()

"""What a forwarded call costs: `facade serve --demo --workers 2` on Redis, 16 handshake-era
(2025-11-25) sessions all held by one worker (the owner), `projects.project_get` sent back to
back from the lean load generator (scripts/loadgen.py) for `--seconds`, first to the owner's own
port, then to the other worker's, which forwards every call to the owner (facade/mcp/forward.py).
CPU per call is read per worker (psutil), so the forwarder's cost stands beside the owner's cost
of answering the same call in the same run; Redis `GET`s per call (`INFO commandstats`, reset
before each block) count the owner look-ups (facade/mcp/replicas.py). Those statistics are the
whole Redis server's, and are reset: give it a Redis no one else is using (the test suite uses
databases 0 and 10-15). The Redis database given is emptied first.

    python scripts/bench_forward.py --redis-url redis://127.0.0.1:6379/9
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

import httpx2
import psutil
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_throughput as bt  # noqa: E402
from benchkit import fresh_workdir, legacy_open_async, machine_line, reference_loop_ms  # noqa: E402
from loadgen import raw_request, run_block  # noqa: E402

from facade.mcp.replicas import replica_of  # noqa: E402

SESSIONS = 16
TOOL = "projects.project_get"


def cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def workers(server_pid: int, ports: dict[str, int]) -> dict[str, psutil.Process]:
    """Each replica id's worker process: the child listening on that replica's own port."""
    found = {}
    for child in psutil.Process(server_pid).children():
        for conn in child.net_connections(kind="tcp"):
            for replica, port in ports.items():
                if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port:
                    found[replica] = child
    return found


async def measure(redis_url: str, seconds: float, rounds: int) -> None:
    store = redis.Redis.from_url(redis_url)
    store.flushdb()
    served = bt.facade_side(fresh_workdir("bench-forward-"), 2, redis_url).start()
    try:
        side = bt.Side(served, identity_in_arguments=False)
        deadline = time.monotonic() + 60
        while len(urls := {k.decode().rsplit(":", 1)[1]: store.get(k).decode() for k in store.keys("facade:replica:*")}) < 2:
            assert time.monotonic() < deadline, "the two workers did not register within 60 s"
            await asyncio.sleep(0.1)
        ports = {replica: int(url.rsplit(":", 1)[1]) for replica, url in urls.items()}
        procs = workers(served.pid, ports)
        assert set(procs) == set(ports), f"found the processes of {sorted(procs)} among {sorted(ports)}"
        owner, forwarder = list(ports)
        async with httpx2.AsyncClient(timeout=60) as pool:
            sessions: list[dict[str, str]] = []
            while len(sessions) < SESSIONS:  # opened on the owner's own port: each is the owner's
                session = await legacy_open_async(pool, f"http://127.0.0.1:{ports[owner]}/mcp", side.auth)
                assert replica_of(session["Mcp-Session-Id"]) == owner, session
                sessions.append(session)
            for _ in range(rounds):
                for target in (owner, forwarder):
                    requests = [raw_request("127.0.0.1", ports[target], "/mcp", headers, body)
                                for body, headers in (side.request(bt.LEGACY, TOOL, s) for s in sessions)]
                    store.config_resetstat()
                    # Read by run_block just before and just after the timed part (not the untimed
                    # first call on each connection, which the generator sends before).
                    snapshots: list[dict[str, float]] = []

                    def probe() -> float:
                        snapshots.append({r: cpu(p) for r, p in procs.items()})
                        return 0.0

                    generated, _ = await asyncio.to_thread(run_block, "127.0.0.1", ports[target], requests, seconds, probe)
                    before, after = snapshots
                    spent = {r: (after[r] - before[r]) * 1000 for r in procs}
                    n = len(generated.latencies)
                    assert n and not generated.error_count, generated.errors
                    gets = store.info("commandstats").get("cmdstat_get", {}).get("calls", 0)
                    p50 = sorted(generated.latencies)[n // 2] * 1000
                    print(f"{'to the owner' if target == owner else 'forwarded':>13}  {n / generated.elapsed:7.0f}  {p50:7.1f}"
                          f"  {spent[owner] / n:9.2f}  {spent[forwarder] / n:13.2f}  {gets / n:8.3f}")
    finally:
        served.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9", help="emptied first")
    parser.add_argument("--seconds", type=float, default=3.0, help="each block's length")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("$ python scripts/bench_forward.py " + " ".join(sys.argv[1:]))
    start_ms, load = reference_loop_ms(), os.getloadavg()
    print(f"{'calls sent':>13}  {'calls/s':>7}  {'p50 ms':>7}  {'owner CPU':>9}  {'forwarder CPU':>13}  {'GETs/call':>8}   (CPU: ms per call)")
    asyncio.run(measure(args.redis_url, args.seconds, args.rounds))
    print(machine_line((start_ms, reference_loop_ms()), before=load, after=os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

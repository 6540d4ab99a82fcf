"""Where a tools/call's CPU goes on the serving thread: `facade serve --demo` under cProfile,
timed by the event-loop thread's own CPU clock (the handlers' worker threads are not in it),
while 16 clients send `--calls` calls of files.stat (or `--call`), half in each protocol era; the top entries
by own time and the serving thread's CPU per call are printed (issue 17). `--side worker` profiles
the other side instead: what runs in anyio's worker threads per call (facade.serving.calls
`_run_sync`: the handler, its session's commit and close, the result's conversion), each thread
under a profiler of its own (cProfile follows one thread), merged when the calls are done.

The profiler runs only while the calls are sent (start-up and the handshakes are not in it) and
adds its own cost to every Python call, so compare runs of this script with each other, never
with scripts/bench_throughput.py's figures.

    python scripts/profile_calls.py                    # 3,000 calls, top 10
    python scripts/profile_calls.py --calls 6000 --top 25 --out calls.prof
    python scripts/profile_calls.py --side worker      # the worker threads' side
    python scripts/profile_calls.py --side worker --call projects.project_get
"""

from __future__ import annotations

import argparse
import asyncio
import pstats
import signal
import sys
import time
from pathlib import Path
from typing import Any, Callable

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_throughput import CALLS  # noqa: E402  (the calls, and their arguments, it measures)
from benchkit import DEV, LoopbackServer, failure, fresh_workdir, legacy_body, legacy_open_async, modern_body, modern_headers  # noqa: E402

CLIENTS = 16
SESSIONS = 8  # handshake-era sessions the clients share
AUTH = {"Authorization": f"Bearer {DEV['atlas']}", "X-Conversation-Id": "profile-calls"}


def serve_profiled(out: Path, port: str, side: str) -> None:
    """`facade serve --demo`; SIGUSR1 starts the profiler on this (the serving) thread, SIGUSR2
    stops it and writes `out`."""
    import cProfile

    profile = cProfile.Profile(time.thread_time)

    def stop(*_: object) -> None:
        profile.disable()
        profile.dump_stats(out)

    if side == "worker":
        start, stop = profile_workers(out)
    else:
        start = lambda *_: profile.enable()  # noqa: E731
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    sys.argv = ["facade", "serve", "--demo", "--port", port]
    from facade.cli.main import app

    app()


def profile_workers(out: Path) -> tuple[Callable[..., None], Callable[..., None]]:
    """Wraps the worker thread's part of a call in a profiler of that thread's own, while on."""
    import cProfile
    import threading

    from facade.serving import calls

    mine = threading.local()
    profiles: list[cProfile.Profile] = []
    on = [False]
    run_sync = calls._run_sync

    def profiled(*args: Any) -> Any:
        if not on[0]:
            return run_sync(*args)
        profile = getattr(mine, "profile", None)
        if profile is None:
            profile = mine.profile = cProfile.Profile(time.thread_time)
            profiles.append(profile)
        profile.enable()
        try:
            return run_sync(*args)
        finally:
            profile.disable()

    def start(*_: object) -> None:
        on[0] = True

    def stop(*_: object) -> None:  # the clients are done: no call is in a worker thread
        on[0] = False
        pstats.Stats(*profiles).dump_stats(out)  # type: ignore[arg-type]

    calls._run_sync = profiled  # type: ignore[assignment]
    return start, stop


async def send(server: LoopbackServer, total: int, tool: str) -> list[str]:
    params = {"name": tool, "arguments": CALLS[tool]}
    modern = modern_body("tools/call", params), {**modern_headers("tools/call", params["name"]), **AUTH}
    async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_connections=CLIENTS)) as client:
        sessions = [await legacy_open_async(client, server.url, AUTH) for _ in range(SESSIONS)]
        for session in sessions:  # a view's first use is not what is profiled
            await client.post(server.url, content=legacy_body("tools/call", params), headers=session)
        await client.post(server.url, content=modern[0], headers=modern[1])
        server.process.send_signal(signal.SIGUSR1)  # type: ignore[union-attr]
        await asyncio.sleep(0.5)
        left, errors = [total], []

        async def one_client(number: int) -> None:
            while left[0] > 0:
                left[0] -= 1
                if left[0] % 2:
                    body, headers = legacy_body("tools/call", params), sessions[number % SESSIONS]
                else:
                    body, headers = modern
                if (why := failure(await client.post(server.url, content=body, headers=headers))) is not None:
                    errors.append(why)

        await asyncio.gather(*(one_client(n) for n in range(CLIENTS)))
        server.process.send_signal(signal.SIGUSR2)  # type: ignore[union-attr]
        await asyncio.sleep(2)  # the stats are written
    return errors


def main() -> int:
    if sys.argv[1:2] == ["serve-profiled"]:  # the server side: serve-profiled OUT SIDE --port PORT
        serve_profiled(Path(sys.argv[2]), sys.argv[5], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--out", type=Path, help="keep the cProfile stats here")
    parser.add_argument("--call", choices=sorted(CALLS), default="files.stat", help="the tool called")
    parser.add_argument("--side", choices=("serving", "worker"), default="serving",
                        help="the event loop's thread, or the worker threads the handlers run in")
    args = parser.parse_args()
    workdir = fresh_workdir("profile-calls-")
    out = (args.out or workdir / "calls.prof").resolve()
    argv = [sys.executable, str(Path(__file__).resolve()), "serve-profiled", str(out), args.side]
    server = LoopbackServer(workdir, argv=argv).start()
    try:
        errors = asyncio.run(send(server, args.calls, args.call))
    finally:
        server.stop()
    stats = pstats.Stats(str(out))
    print(f"{args.side} thread{'s' if args.side == 'worker' else ''} CPU: {stats.total_tt:.3f} s for {args.calls} calls, "  # type: ignore[attr-defined]
          f"{stats.total_tt * 1000 / args.calls:.3f} ms/call (under the profiler); errors: {len(errors)}")  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(args.top)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

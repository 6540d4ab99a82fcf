"""`FACADE_CPU_AFFINITY`: a server process's threads on one CPU (facade/affinity.py) — which CPU
each process takes, that servers on one machine each claim a CPU of their own, that every thread
of a running `facade serve` is on it (those started after it too), that `off` leaves them free,
and a clear refusal of a setting that cannot be served."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from facade import affinity, cpu_claims
from facade.affinity import checked_setting, chosen_cpu, parse_cpus
from tests.support import DEV, REPO, ServerProcess
from tests.test_economy import facade

from benchkit import claims_scope, modern_body, modern_headers, pinned_cpu

MANY_CPUS = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="pinning needs a system that pins (Linux) and at least 2 CPUs this process may use",
)


def cpus_of_threads(pid: int) -> dict[int, str]:
    """Each thread's allowed CPUs, as /proc lists them (`0-1`, `1`)."""
    found = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            status = Path(f"/proc/{pid}/task/{task}/status").read_text()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        found[int(task)] = next(line.split()[1] for line in status.splitlines() if line.startswith("Cpus_allowed_list:"))
    return found


class TestSetting:
    def test_lists_in_tasksets_format(self) -> None:
        assert parse_cpus("0") == [0]
        assert parse_cpus("0-3,5") == [0, 1, 2, 3, 5]
        assert parse_cpus("2,0,2") == [2, 0]

    @pytest.mark.parametrize("bad", ["", "first", "1,", "3-1", "-1", "0 1"])
    def test_a_malformed_list_is_refused_with_what_is_accepted(self, bad: str) -> None:
        with pytest.raises(ValueError, match="must be auto, off or a list of CPU numbers"):
            checked_setting(bad)

    def test_words_whatever_their_case(self) -> None:
        assert checked_setting(" Auto ") == "auto"
        assert checked_setting("OFF") == "off"

    def test_a_bad_value_stops_serve_with_one_line(self, tmp_path: Path) -> None:
        done = facade(tmp_path, "serve", env={"FACADE_CPU_AFFINITY": "fast"})
        assert done.returncode == 2, done.stderr
        assert "FACADE_CPU_AFFINITY=fast: must be auto, off or a list of CPU numbers" in done.stderr
        assert "Traceback" not in done.stderr


class TestChoice:
    def test_off_pins_nothing(self) -> None:
        assert chosen_cpu("off", 1, 1) is None

    def test_one_cpu_allowed_pins_nothing(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity.os, "sched_getaffinity", lambda _: {3})
        assert chosen_cpu("auto", 1, 1) is None

    def test_a_lone_server_stays_where_it_started(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity.os, "sched_getaffinity", lambda _: {0, 1, 2, 3})
        monkeypatch.setattr(affinity, "_current_cpu", lambda: 2)
        assert chosen_cpu("auto", 1, 1) == 2
        monkeypatch.setattr(affinity, "_current_cpu", lambda: None)  # unreadable: the first allowed
        assert chosen_cpu("auto", 1, 1) == 0

    def test_workers_are_left_free_unless_cpus_are_listed(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity.os, "sched_getaffinity", lambda _: {4, 5, 6})
        assert [chosen_cpu("auto", n, 4) for n in (1, 2, 3, 4)] == [None] * 4
        assert [chosen_cpu("5,4", n, 3) for n in (1, 2, 3)] == [5, 4, 5]

    def test_a_listed_cpu_out_of_reach_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity.os, "sched_getaffinity", lambda _: {0, 1})
        with pytest.raises(affinity.StartupError, match="names CPU 7, which this process may not use .it may use 0,1."):
            chosen_cpu("0,7", 1, 1)

    def test_this_machines_current_cpu_is_read(self) -> None:
        current = affinity._current_cpu()  # noqa: SLF001
        assert current is not None and current in os.sched_getaffinity(0)


CLAIMER = """
import sys
from facade import cpu_claims
print("CLAIMED", cpu_claims.claim([int(c) for c in sys.argv[1].split(",")], sys.argv[2]), flush=True)
sys.stdin.readline()  # holds its claim until told
"""


class Claimer:
    """Another server's claim: a process of its own that claims the first free CPU of `cpus` in
    `scope` and holds it until stopped."""

    def __init__(self, cpus: list[int], scope: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", CLAIMER, ",".join(map(str, cpus)), scope],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
        try:
            out = ""
            assert self.process.stdout is not None
            for line in self.process.stdout:  # a claim cannot block: binding a name returns at once
                if line.startswith("CLAIMED "):  # after any log line
                    out = line.split()[1]
                    break
            assert out, "the claimer ended without saying what it claimed"
            self.cpu = None if out == "None" else int(out)
        except BaseException:
            self.stop(kill=True)
            raise

    def stop(self, kill: bool = False) -> None:
        if not kill:
            try:
                self.process.communicate("\n", timeout=60)
            except (subprocess.TimeoutExpired, OSError, ValueError):
                kill = True
        if kill:  # as a crash ends it: no code of its own runs
            self.process.kill()
        self.process.wait(60)


@contextlib.contextmanager
def claimers(scope: str, *choices: list[int]) -> Iterator[list[Claimer]]:
    """One claimer per list of CPUs, started in order, all stopped afterwards whatever happens."""
    started: list[Claimer] = []
    try:
        for cpus in choices:
            started.append(Claimer(cpus, scope))
        yield started
    finally:
        for claimer in started:
            if claimer.process.poll() is None:
                with contextlib.suppress(Exception):
                    claimer.stop()


class TestClaims:
    """Servers on one machine each take a CPU no other has claimed (facade/cpu_claims.py), across
    processes, writing nothing."""

    def test_the_first_choice_then_the_next_free_then_none(self, tmp_path: Path) -> None:
        with claimers(claims_scope(tmp_path), *[[2, 0, 1]] * 4) as held:
            assert [c.cpu for c in held] == [2, 0, 1, None]

    def test_scopes_do_not_see_each_others_claims(self, tmp_path: Path) -> None:
        with claimers(claims_scope(tmp_path), [0, 1]) as (one,), claimers(claims_scope(tmp_path / "other"), [0, 1]) as (other,):
            assert (one.cpu, other.cpu) == (0, 0)

    def test_a_claim_ends_with_its_process_however_it_ends(self, tmp_path: Path) -> None:
        scope = claims_scope(tmp_path)
        with claimers(scope, [0, 1], [0, 1]) as (first, second):
            assert (first.cpu, second.cpu) == (0, 1)
            first.stop(kill=True)
            with claimers(scope, [1, 0]) as (again,):  # 1 is still held: the killed one's 0 is free
                assert again.cpu == 0

    def test_a_claim_given_back_is_free_again(self, tmp_path: Path) -> None:
        scope = claims_scope(tmp_path)
        assert cpu_claims.claim([0], scope) == 0
        try:
            assert cpu_claims.claim([0], scope) == 0  # held already: still this process's
            with claimers(scope, [0, 1]) as (other,):
                assert other.cpu == 1
        finally:
            cpu_claims.release(0, scope)
        with claimers(scope, [0, 1]) as (other,):
            assert other.cpu == 0

    def test_a_name_any_process_holds_counts_as_claimed(self, tmp_path: Path) -> None:
        """Whatever holds the name, a server moves on; a process holding every name leaves it
        unpinned, never stopped (TestServe)."""
        scope = claims_scope(tmp_path)
        squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        squatter.bind(f"\0facade-cpu/{scope}/0".encode())
        try:
            with claimers(scope, [0, 1]) as (claimer,):
                assert claimer.cpu == 1
        finally:
            squatter.close()

    def test_nothing_is_written(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(tmp_path)
        scope = claims_scope(tmp_path)
        assert cpu_claims.claim([0], scope) == 0
        cpu_claims.release(0, scope)
        assert list(tmp_path.iterdir()) == []

    @pytest.mark.parametrize("scope", ["", "a b", "../x", "x" * 65])
    def test_a_scope_that_cannot_be_a_name_is_refused(self, tmp_path: Path, scope: str) -> None:
        done = facade(tmp_path, "serve", env={"FACADE_CPU_CLAIMS_SCOPE": scope})
        assert done.returncode == 2, done.stderr
        assert f"FACADE_CPU_CLAIMS_SCOPE={scope}: must be 1-64 letters, digits" in done.stderr


@MANY_CPUS
class TestPinClaims:
    """`pin` with the system's pinning replaced, so that this test process stays free."""

    @pytest.fixture(autouse=True)
    def _no_pinning(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity, "_placement", None)
        monkeypatch.setattr(affinity.os, "sched_setaffinity", lambda _, cpus: None)

    def test_a_cpu_the_operator_names_is_claimed_so_that_auto_keeps_off_it(self, tmp_path: Path) -> None:
        first, scope = min(os.sched_getaffinity(0)), claims_scope(tmp_path)
        assert affinity.pin(str(first), scope=scope) is not None
        try:
            with claimers(scope, sorted(os.sched_getaffinity(0))) as (auto,):
                assert auto.cpu is not None and auto.cpu != first
        finally:
            cpu_claims.release(first, scope)

    def test_a_claim_is_given_back_when_the_system_refuses_to_pin(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        def refuse(_: int, cpus: set[int]) -> None:
            raise PermissionError("not in this sandbox")

        monkeypatch.setattr(affinity.os, "sched_setaffinity", refuse)
        scope = claims_scope(tmp_path)
        assert affinity.pin("auto", scope=scope) is None
        with claimers(scope, *[[c] for c in sorted(os.sched_getaffinity(0))]) as held:
            assert None not in [c.cpu for c in held]  # every CPU free for the servers that can pin


@MANY_CPUS
class TestServe:
    def _call(self, server: ServerProcess) -> None:
        """A call through a worker thread, so that the pool has started its threads."""
        headers = {**modern_headers("tools/call", "files.stat"), "Authorization": f"Bearer {DEV['atlas']}"}
        response = httpx2.post(server.url, content=modern_body("tools/call", {"name": "files.stat", "arguments": {"path": "/"}}),
                               headers=headers, timeout=60)
        assert response.status_code == 200 and '"isError":false' in response.text, response.text

    def test_every_thread_of_a_server_is_on_one_cpu(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path).start()
        try:
            self._call(server)
            threads = cpus_of_threads(server.pid)
            assert len(threads) > 1  # the loop and at least one worker thread
            assert len(set(threads.values())) == 1, threads
            (cpu,) = set(threads.values())
            assert cpu.isdigit() and int(cpu) in os.sched_getaffinity(0)
            assert f'"cpu":{cpu}' in server.log().replace(" ", "")  # the operator is told which
        finally:
            server.stop()

    def test_servers_started_one_after_another_take_cpus_of_their_own(self, tmp_path: Path) -> None:
        """Two replicas on one machine, the second started once the first answers (as a rolling
        start does): without claims they landed on one CPU in 5 of 8 tries (2026-12-06)."""
        claims = {"FACADE_CPU_CLAIMS_SCOPE": claims_scope(tmp_path)}
        (tmp_path / "one").mkdir(), (tmp_path / "two").mkdir()
        first = ServerProcess(tmp_path / "one", env=claims).start()
        try:
            second = ServerProcess(tmp_path / "two", env=claims).start()
            try:
                cpus = (pinned_cpu(first.log()), pinned_cpu(second.log()))
                assert None not in cpus and cpus[0] != cpus[1], cpus
                assert set(cpus_of_threads(second.pid).values()) == {str(cpus[1])}
            finally:
                second.stop()
        finally:
            first.stop()

    def test_a_server_takes_the_cpu_nobody_has_claimed(self, tmp_path: Path) -> None:
        """Every CPU but the last is held in the server's claims folder: it pins that one."""
        allowed = sorted(os.sched_getaffinity(0))
        with claimers(claims_scope(tmp_path), *[[c] for c in allowed[:-1]]):
            server = ServerProcess(tmp_path, env={"FACADE_CPU_CLAIMS_SCOPE": claims_scope(tmp_path)}).start()
            try:
                assert pinned_cpu(server.log()) == allowed[-1]
            finally:
                server.stop()

    def test_a_server_finding_every_cpu_claimed_serves_with_its_threads_free(self, tmp_path: Path) -> None:
        allowed = sorted(os.sched_getaffinity(0))
        with claimers(claims_scope(tmp_path), *[[c] for c in allowed]):
            server = ServerProcess(tmp_path, env={"FACADE_CPU_CLAIMS_SCOPE": claims_scope(tmp_path)}).start()
            try:
                self._call(server)
                assert pinned_cpu(server.log()) is None
                assert "no CPU could be claimed" in server.log()
                mine = Path(f"/proc/{os.getpid()}/status").read_text().split("Cpus_allowed_list:")[1].split()[0]
                assert set(cpus_of_threads(server.pid).values()) == {mine}  # every thread free
            finally:
                server.stop()

    def test_off_leaves_the_threads_free(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path, env={"FACADE_CPU_AFFINITY": "off"}).start()
        try:
            self._call(server)
            allowed = Path(f"/proc/{os.getpid()}/status").read_text().split("Cpus_allowed_list:")[1].split()[0]
            assert set(cpus_of_threads(server.pid).values()) == {allowed}
            assert "cpu.pinned" not in server.log()
        finally:
            server.stop()


class TestFollowing:
    """The threads are freed while a job uses much CPU and pinned again once none has for a while."""

    def test_the_rule(self, monkeypatch: pytest.MonkeyPatch) -> None:
        placed: list[bool] = []
        placement = affinity.Placement(1, {0, 1}, 1)
        monkeypatch.setattr(placement, "place", lambda pinned: placed.append(pinned) or setattr(placement, "pinned", pinned) or True)
        placement.pinned = True
        placement.follow(0.001, now=10.0)  # short jobs: stays
        placement.follow(affinity.LONG_JOB, now=10.1)  # a long one: freed
        placement.follow(0.0, now=10.1 + affinity.CALM / 2)  # too soon after it: stays free
        placement.follow(0.0, now=10.1 + affinity.CALM)  # calm for long enough: pinned again
        assert placed == [False, True]

    def test_a_refusal_is_told_once_and_followed_no_further(self, monkeypatch: pytest.MonkeyPatch) -> None:
        tries: list[set[int]] = []

        def refuse(_: int, cpus: set[int]) -> None:
            tries.append(cpus)
            raise PermissionError("not in this sandbox")

        monkeypatch.setattr(affinity.os, "sched_setaffinity", refuse)
        placement = affinity.Placement(1, {0, 1}, 1)
        placement.pinned = True
        placement.follow(affinity.LONG_JOB, now=10.0)  # freeing is refused
        placement.follow(0.0, now=10.0 + affinity.CALM)  # nothing more is tried, nothing more is said
        placement.follow(affinity.LONG_JOB, now=20.0)
        assert tries == [{0, 1}] and placement.refused

    @MANY_CPUS
    def test_a_long_job_frees_the_threads_of_a_pinned_process(self, tmp_path: Path) -> None:
        """In a process of its own (pinning this one would pin the test run): a job that sleeps
        well past LONG_JOB, then one that computes until the threads are freed, then nothing; the
        affinity of every thread is read from /proc while the second runs and after the calm."""
        script = """
import asyncio, json, os, sys, time
from facade import affinity, threads

def cpus():
    return {tuple(sorted(os.sched_getaffinity(int(t)))) for t in os.listdir("/proc/self/task")}

async def main():
    placement = affinity.pin("auto", scope=sys.argv[1])  # claims of its own: other tests' servers hold theirs
    assert placement is not None
    follower = asyncio.ensure_future(affinity.follow_work(threads.most_cpu))
    pinned = cpus()
    await threads.off_loop(time.sleep, 10 * affinity.LOOK_EVERY)  # long, but no CPU used
    waited = placement.pinned
    during = []
    def long_job():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and placement.pinned:  # CPU, until the follower frees us
            sum(range(1000))
        during.append(cpus())
    await threads.off_loop(long_job)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not placement.pinned:
        await asyncio.sleep(0.05)
    print("RESULT " + json.dumps([sorted(pinned), waited, sorted(during[0]), sorted(cpus()), placement.pinned]))
    follower.cancel()

asyncio.run(main())
"""
        done = subprocess.run([sys.executable, "-c", script, claims_scope(tmp_path)], capture_output=True, text=True, timeout=120, cwd=REPO)
        assert done.returncode == 0, done.stderr
        line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
        pinned, waited, during, after, again = json.loads(line.removeprefix("RESULT "))
        assert len(pinned) == 1 and len(pinned[0]) == 1  # every thread on the one CPU
        assert waited is True  # a job that only waited (a slow database, a file) changed nothing
        assert during == [sorted(os.sched_getaffinity(0))]  # every thread free while the job ran long
        assert after == pinned and again is True

"""`FACADE_CPU_AFFINITY`: a server process's threads on one CPU (facade/affinity.py) — which CPU
each process takes, that every thread of a running `facade serve` is on it (those started after
it too), that `off` leaves them free, and a clear refusal of a setting that cannot be served."""

from __future__ import annotations

import os
from pathlib import Path

import httpx2
import pytest

from facade import affinity
from facade.affinity import checked_setting, chosen_cpu, parse_cpus
from tests.support import DEV, ServerProcess
from tests.test_economy import facade

from benchkit import modern_body, modern_headers

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

    def test_workers_take_one_cpu_each_in_turn(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity.os, "sched_getaffinity", lambda _: {4, 5, 6})
        assert [chosen_cpu("auto", n, 4) for n in (1, 2, 3, 4)] == [4, 5, 6, 4]
        assert [chosen_cpu("5,4", n, 3) for n in (1, 2, 3)] == [5, 4, 5]

    def test_a_listed_cpu_out_of_reach_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(affinity.os, "sched_getaffinity", lambda _: {0, 1})
        with pytest.raises(affinity.StartupError, match="names CPU 7, which this process may not use .it may use 0,1."):
            chosen_cpu("0,7", 1, 1)

    def test_this_machines_current_cpu_is_read(self) -> None:
        current = affinity._current_cpu()  # noqa: SLF001
        assert current is not None and current in os.sched_getaffinity(0)


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

    def test_off_leaves_the_threads_free(self, tmp_path: Path) -> None:
        server = ServerProcess(tmp_path, env={"FACADE_CPU_AFFINITY": "off"}).start()
        try:
            self._call(server)
            allowed = Path(f"/proc/{os.getpid()}/status").read_text().split("Cpus_allowed_list:")[1].split()[0]
            assert set(cpus_of_threads(server.pid).values()) == {allowed}
            assert "cpu.pinned" not in server.log()
        finally:
            server.stop()

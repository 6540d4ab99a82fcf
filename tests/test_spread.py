"""`facade check` spreads its per-capability model checks over forked processes on a large
catalogue (facade/reports/spread.py): the same answer as one process, in order, and a child
that fails never changes it. Each case runs in a process of its own, single-threaded as the
CLI is, because forking a test worker's threads is not what the gate does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from facade.affinity import usable_cpus
from tests.support import REPO
from tests.test_plugins import check_in

pytestmark = pytest.mark.skipif(sys.platform != "linux" or usable_cpus() < 2, reason="spreads only over 2+ CPUs on Linux")


def run(code: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class TestSpread:
    def test_shares_come_back_in_order_from_more_than_one_process(self) -> None:
        out = run("""
            import json, os
            from facade.reports.spread import spread
            parent = os.getpid()
            got = spread(list(range(5000)), lambda share: [(x * 2, os.getpid()) for x in share])
            print(json.dumps({"values": [v for v, _ in got], "pids": sorted({p for _, p in got}), "parent": parent}))
        """)
        assert out["values"] == [x * 2 for x in range(5000)]
        assert len(out["pids"]) >= 2 and out["parent"] in out["pids"]

    def test_a_child_that_dies_or_raises_has_its_share_done_by_the_parent(self) -> None:
        out = run("""
            import json, os
            from facade.reports.spread import spread
            parent = os.getpid()

            def dies(share):
                if os.getpid() != parent:
                    os._exit(3)
                return [x + 1 for x in share]

            def raises(share):
                if os.getpid() != parent:
                    raise RuntimeError("only in the child")
                return [x + 1 for x in share]

            print(json.dumps({"dies": spread(list(range(4000)), dies), "raises": spread(list(range(4000)), raises)}))
        """)
        assert out["dies"] == out["raises"] == [x + 1 for x in range(4000)]

    def test_a_fork_the_system_refuses_leaves_the_share_to_the_parent(self) -> None:
        out = run("""
            import errno, json, os
            from facade.reports import spread as s

            def refused():
                raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

            s.os.fork = refused
            before = len(os.listdir("/proc/self/fd"))
            got = s.spread(list(range(4000)), lambda share: [(x, os.getpid()) for x in share])
            print(json.dumps({"values": [v for v, _ in got], "pids": sorted({p for _, p in got}),
                              "fds": len(os.listdir("/proc/self/fd")) - before}))
        """)
        assert out["values"] == list(range(4000)) and len(out["pids"]) == 1 and out["fds"] == 0

    def test_small_work_stays_in_one_process(self) -> None:
        out = run("""
            import json, os
            from facade.reports.spread import spread
            print(json.dumps(sorted({p for p in spread(list(range(100)), lambda share: [os.getpid() for _ in share])})))
        """)
        assert len(out) == 1


def test_the_gate_finds_a_bad_example_in_a_childs_share(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Spread from the first capability on (a sitecustomize on the path lowers the threshold);
    # the bad example's domain is loaded last, so it falls in the last share: a child's.
    spread_from_one = tmp_path / "spread_from_one"
    spread_from_one.mkdir()
    (spread_from_one / "sitecustomize.py").write_text("import facade.reports.spread as s\ns.LEAST = 1\n")
    code, report = check_in(tmp_path, "--update-lock", also="tests.fixtures.bad_example_domain", path=spread_from_one)
    assert code == 1
    assert [p for p in report["problems"] if p.startswith(("example:", "identity:"))] == [
        "example: badexample.counter_add's example does not validate against CounterAdd: "
        "amount: Input should be a valid integer, unable to parse string as an integer"
    ]
    assert report["facts"]["identity_parsed_pct"] == 100.0

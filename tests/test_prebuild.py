"""What `facade serve` builds before it serves (facade/serving/prebuild.py): the announced tools
derived in a child while it prepares its database, and a runtime's list.

The fork happens only in a process running one thread, which a pytest worker is not (its
channel has a thread of its own): the forking cases run in a fresh interpreter of their own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest

from facade.access.identity import TokenBook
from facade.affinity import usable_cpus
from facade.catalogue import served as served_module
from facade.catalogue.announced import CACHE_FILE
from facade.catalogue.registry import Registry
from facade.catalogue.served import ServedCatalogues
from facade.catalogue.wire import STORED_ERA, tools_array
from facade.serving.prebuild import build_runtime_list
from facade.serving.service import Service
from tests.support import REPO
from tests.test_served import notes

forking = pytest.mark.skipif(sys.platform != "linux" or usable_cpus() < 2, reason="a child is made only with 2+ CPUs on Linux")

# Runs in a fresh interpreter: the notes domain served with a cache folder (argv[1]), the block
# given by argv[2]; prints what the parent saw as JSON.
SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    import facade.catalogue.served as served_module
    from facade.catalogue.served import ServedCatalogues
    from facade.serving.prebuild import prebuilding
    from tests.test_served import notes

    served = ServedCatalogues(notes().capabilities, cache=Path(sys.argv[1]))

    def refuse(capability):
        raise AssertionError("derived in the parent")

    seen = {}
    try:
        with prebuilding(served):
            if sys.argv[2] == "parent-cannot-derive":  # after the fork: the child keeps the real one
                served_module.announced_tool = refuse
            elif sys.argv[2] == "fail":
                raise RuntimeError("the database is away")
    except RuntimeError as exc:
        seen["failed"] = str(exc)
        try:
            seen["child_left"] = os.waitpid(-1, os.WNOHANG)[0]
        except ChildProcessError:
            seen["child_left"] = None
    else:
        seen["names"] = [served.tool(c.name)["name"] for c in notes().capabilities]
    print(json.dumps(seen))
    """
)


def run(folder: Path, block: str) -> tuple[dict, str]:
    """What the parent saw, and all the process wrote (structlog unconfigured writes to stdout)."""
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), block], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stdout + done.stderr


@forking
class TestTheChild:
    def test_derives_and_keeps_them_while_the_parent_goes_on(self, tmp_path: Path) -> None:
        """The parent cannot derive once the block has begun, yet ends with every tool: the
        child derived and kept them, and the parent read them."""
        seen, _ = run(tmp_path, "parent-cannot-derive")
        assert seen["names"] == ["notes.add", "notes.append"]
        assert (tmp_path / CACHE_FILE).exists()

    def test_that_keeps_nothing_leaves_the_parent_to_derive_and_say_so_once(self, tmp_path: Path) -> None:
        """A folder that cannot be made fails the child's write and the parent's: the tools are
        derived anyway, and the one warning is the parent's (the child says nothing)."""
        blocker = tmp_path / "a-file"
        blocker.write_text("")
        seen, output = run(blocker / "cache", "nothing")
        assert seen["names"] == ["notes.add", "notes.append"]
        assert output.count("announced.not_kept") == 1, output

    def test_is_stopped_when_the_block_fails(self, tmp_path: Path) -> None:
        seen, _ = run(tmp_path, "fail")
        assert seen == {"failed": "the database is away", "child_left": None}


class TestWhenAChildHelps:
    def test_only_while_the_folder_holds_none_for_this_code(self, tmp_path: Path) -> None:
        first = ServedCatalogues(notes().capabilities, cache=tmp_path)
        assert first.needs_deriving()
        first.build()
        assert not first.needs_deriving()  # built: nothing left to derive
        assert not ServedCatalogues(notes().capabilities, cache=tmp_path).needs_deriving()  # the next start reads them
        assert ServedCatalogues(notes("Add a short note.").capabilities, cache=tmp_path).needs_deriving()  # an edit

    def test_never_without_a_folder(self) -> None:
        assert not ServedCatalogues(notes().capabilities).needs_deriving()

    def test_a_file_kept_under_another_fingerprint_or_damaged_does_not_count(self, tmp_path: Path) -> None:
        served = ServedCatalogues(notes().capabilities, cache=tmp_path)
        for text in ('{"fingerprint":"0000","parts":[],"tools":[]}', "{not json"):
            (tmp_path / CACHE_FILE).write_text(text)
            assert served.needs_deriving()


def a_service(tokens: TokenBook) -> SimpleNamespace:
    """What `build_runtime_list` reads of a service, with the service's own `runtime_list` (the
    one rule the server's runtime listing follows too)."""
    registry = Registry([notes()])
    service = SimpleNamespace(served=ServedCatalogues(registry), registry=registry, token_book=tokens)
    service.runtime_list = lambda: Service.runtime_list(service)  # type: ignore[arg-type]
    return service


class TestARuntimesList:
    """The whole catalogue's array, built before serving when a runtime may ask for it."""

    def test_is_built_so_that_the_first_runtime_listing_encodes_nothing(self, monkeypatch: pytest.MonkeyPatch) -> None:
        service = a_service(TokenBook({}, on_loopback=True))  # the development runtime token
        size = build_runtime_list(service)  # type: ignore[arg-type]
        expected = tools_array(service.runtime_list().tools)
        assert [t["name"] for t in orjson.loads(expected)] == ["notes.add", "notes.append"]  # the whole catalogue
        monkeypatch.setattr(served_module, "tools_array", lambda *a, **k: pytest.fail("the runtime's listing encoded its array"))
        assert service.runtime_list().wire(STORED_ERA).encoded == expected and size == len(expected) > 2
        with pytest.raises(pytest.fail.Exception):  # an older era's array is its first listing's to build
            service.runtime_list().wire("2025-11-25")

    def test_is_not_built_where_no_runtime_may_list(self, monkeypatch: pytest.MonkeyPatch) -> None:
        tokens = TokenBook({}, on_loopback=False)  # no runtime tokens, and no development one off loopback
        assert not tokens.serves_runtimes and TokenBook({}, runtime_tokens=["t"], on_loopback=False).serves_runtimes
        service = a_service(tokens)
        assert build_runtime_list(service) is None  # type: ignore[arg-type]
        monkeypatch.setattr(served_module, "tools_array", lambda *a, **k: pytest.fail("encoded"))
        with pytest.raises(pytest.fail.Exception):
            service.runtime_list().wire(STORED_ERA)

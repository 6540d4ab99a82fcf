"""The catalogue lock: no tier, approval or read-only hint changes without a reviewed line in
catalogue.lock, and a third party's inferred tiers are named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from facade.catalogue.discovery import discover
from facade.errors import ConfigError
from facade.kit import Input
from facade.reports.lock import Locked, live, lock_changes, read_lock, render_lock
from facade.settings import DEMO_BUDGET
from tests.support import REPO
from tests.test_economy import REPO_AGENTS, facade

REGISTRY = discover()
COMMITTED = REPO / "catalogue.lock"


def check(tmp_path: Path, lock: Path, *extra: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    args = ["check", "--budget", str(DEMO_BUDGET), "--lock", str(lock), *extra]
    return facade(tmp_path, *args, env={**REPO_AGENTS, **(env or {})})


class TestTheFile:
    """The lock is the registry, one reviewable line per capability."""

    def test_the_committed_lock_is_the_registry(self) -> None:
        assert read_lock(COMMITTED) == live(REGISTRY)
        assert COMMITTED.read_text() == render_lock(live(REGISTRY))

    def test_every_change_is_named(self) -> None:
        was = {"a.one": Locked("core", 0, True), "a.two": Locked("full", 2, False), "a.gone": Locked("core", 0, False)}
        now = {"a.one": Locked("full", 1, False), "a.two": Locked("full", 2, False), "a.new": Locked("core", 0, True)}
        problems = lock_changes(was, now)
        assert [p.split(";")[0] for p in problems] == [
            "lock: a.gone was removed (it was tier core, approval 0, read-only false)",
            "lock: a.new is new (tier core, approval 0, read-only true)",
            "lock: a.one changed tier core → full, approval 0 → 1, read-only true → false",
        ]
        assert all("facade check --update-lock" in p for p in problems)

    def test_a_missing_lock_reads_as_none_and_a_broken_one_says_so(self, tmp_path: Path) -> None:
        assert read_lock(tmp_path / "none.lock") is None
        (tmp_path / "bad.lock").write_text('[a]\nb = { tier = "middle", approval = 0, read_only = false }\n')
        with pytest.raises(ConfigError, match="catalogue lock .*bad.lock: not a lock"):
            read_lock(tmp_path / "bad.lock")


class TestTheGate:
    """`facade check` holds the lock, names each change and accepts it on --update-lock."""

    def test_the_committed_lock_holds(self, tmp_path: Path) -> None:
        done = check(tmp_path, COMMITTED)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{len(REGISTRY)} capabilities locked" in done.stdout and "warning" not in done.stdout

    def test_a_tier_change_fails_until_accepted(self, tmp_path: Path) -> None:
        target = next(c for c in REGISTRY if c.tier == "full" and c.approval == 0)
        domain, action = target.name.split(".")
        lock = tmp_path / "catalogue.lock"
        text = COMMITTED.read_text()
        line = f'{action} = {{ tier = "full", approval = 0,'
        assert text.count(line) >= 1
        head, _, tail = text.partition(f"[{domain}]\n")
        lock.write_text(head + f"[{domain}]\n" + tail.replace(line, f'{action} = {{ tier = "core", approval = 0,', 1))
        done = check(tmp_path, lock, "--json")
        report = json.loads(done.stdout)
        assert done.returncode == 1 and not report["ok"]
        assert [p for p in report["problems"] if p.startswith("lock:")] == [
            f"lock: {target.name} changed tier core → full; if that is intended, accept it with "
            "`facade check --update-lock` and commit catalogue.lock"
        ]
        accepted = check(tmp_path, lock, "--update-lock")
        assert accepted.returncode == 0, accepted.stdout
        assert f"wrote {lock} ({len(REGISTRY)} capabilities)" in accepted.stdout
        assert lock.read_text() == COMMITTED.read_text()

    def test_a_missing_lock_is_a_warning(self, tmp_path: Path) -> None:
        done = check(tmp_path, tmp_path / "none.lock")
        assert done.returncode == 0, done.stdout
        assert f"warning: lock: no catalogue lock at {tmp_path / 'none.lock'}" in done.stdout

    def test_a_broken_lock_is_an_error(self, tmp_path: Path) -> None:
        (tmp_path / "bad.lock").write_text("[a\n")
        done = check(tmp_path, tmp_path / "bad.lock")
        assert done.returncode == 2 and done.stderr.startswith("error: catalogue lock")


class EmptyInput(Input):
    """No arguments."""


class TestThirdPartyTiers:
    """A third-party domain's tiers left to the verb rule are named, at discovery and in check."""

    def test_discovery_warns_for_each_inferred_tier(self) -> None:
        registry = discover(["tests.fixtures.tiers_domain"])
        named = [w.split(" from ")[0] for w in registry.warnings]
        assert named == ["tier: gadgets.count", "tier: gadgets.gadget_get"]  # ping declares core against its verb
        assert "is 'full'" in registry.warnings[0] and "is 'core'" in registry.warnings[1]
        assert "FACADE_DOMAINS module 'tests.fixtures.tiers_domain'" in registry.warnings[0]
        assert discover().warnings == []  # the bundled domains are first-party

    def test_the_kit_records_whether_a_tier_was_declared(self) -> None:
        from facade.kit import Domain

        def handler(ctx, args: EmptyInput) -> dict:  # type: ignore[no-untyped-def]
            """Counts."""
            return {}

        domain = Domain("widgets")
        left = domain.add("count", handler)
        same = domain.add("tally_count", handler, tier="core")  # declared, and what the verb implies
        assert (left.tier, left.tier_inferred) == ("full", True)
        assert (same.tier, same.tier_inferred) == ("core", False)

    def test_check_shows_the_warning_and_the_new_capabilities(self, tmp_path: Path) -> None:
        lock = tmp_path / "catalogue.lock"
        lock.write_text(COMMITTED.read_text())
        env = {"FACADE_DOMAINS": "tests.fixtures.tiers_domain", "FACADE_LOG_JSON": "1"}
        done = check(tmp_path, lock, "--json", env=env)
        report = json.loads(done.stdout)  # the discovery log went to stderr, not into the JSON
        assert done.returncode == 1
        assert [p.split(";")[0] for p in report["problems"] if p.startswith("lock:")] == [
            "lock: gadgets.count is new (tier full, approval 0, read-only false)",
            "lock: gadgets.gadget_get is new (tier core, approval 0, read-only false)",
            "lock: gadgets.ping is new (tier core, approval 0, read-only false)",
        ]
        assert [w.split(" from ")[0] for w in report["warnings"]] == ["tier: gadgets.count", "tier: gadgets.gadget_get"]
        logged = [json.loads(line) for line in done.stderr.splitlines() if "tier_inferred" in line]  # JSON lines
        assert {(e["capability"], e["tier"], e["level"]) for e in logged} == {
            ("gadgets.count", "full", "warning"),
            ("gadgets.gadget_get", "core", "warning"),
        }
        accepted = check(tmp_path, lock, "--update-lock", env=env)
        assert accepted.returncode == 0, accepted.stdout
        assert "warning: tier: gadgets.count from FACADE_DOMAINS module" in accepted.stdout

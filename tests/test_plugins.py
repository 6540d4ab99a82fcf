"""A third-party domain is held to the gate's contract (identity, agreement, lint, lock), not to
the project's own floors, and an agent without a budget entry is a warning, not a failure."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

from facade.catalogue.registry import Registry
from facade.kit import CallContext, Domain, Input
from facade.reports.check import CheckReport, Floors, _floors
from facade.settings import DEMO_BUDGET
from tests.support import REPO
from tests.test_economy import facade

# A domain as a third party might ship it: one capability, core only.
HELLO = '''
from facade.kit import CallContext, Domain, Input

domain = Domain("hello", description="Greetings a third party ships.")


class Greet(Input):
    name: str


@domain.capability("greet", tier="core", read_only=True, example={"name": "Ada"})
def greet(ctx: CallContext, args: Greet) -> dict:
    """Greet someone by name."""
    return {"greeting": f"hello, {args.name}"}
'''


def core_only(name: str) -> Domain:
    class Nothing(Input):
        pass

    def noop(ctx: CallContext, args: Nothing) -> dict:
        return {}

    domain = Domain(name)
    domain.add("thing_get", noop, input_model=Nothing, description="Read a thing.", tier="core", example={})
    return domain


def check_in(tmp_path: Path, *extra: str, also: str = "", path: Path | None = None) -> tuple[int, dict]:  # type: ignore[type-arg]
    """`facade check --json` with the hello module on FACADE_DOMAINS (from a folder of its own),
    plus the modules in `also`, and an agent `greeter` that uses it and has no budget entry;
    `path`, a folder put first on the Python path."""
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "hello_domain.py").write_text(HELLO)
    agents = tmp_path / "agents"
    facade(tmp_path, "catalogue")  # lays out the demo agents
    (agents / "greeter").mkdir()
    (agents / "greeter" / "agent.toml").write_text('name = "greeter"\ndescription = "Greets."\n\n[apps]\nhello = "default"\n')
    lock = tmp_path / "catalogue.lock"
    lock.write_text((REPO / "catalogue.lock").read_text())
    env = {
        "FACADE_DOMAINS": ",".join(filter(None, ["hello_domain", also])),
        "PYTHONPATH": os.pathsep.join([*([str(path)] if path else []), str(plugin), str(REPO)]),
    }
    args = ["check", "--json", "--budget", str(DEMO_BUDGET), "--lock", str(lock), *extra]
    done = facade(tmp_path, *args, env=env)
    return done.returncode, json.loads(done.stdout)


class TestThirdPartyDomainsInCheck:
    """`facade check` in a deployment that loads a third-party domain."""

    def test_core_only_third_party_domain_and_unbudgeted_agent_pass(self, tmp_path: Path) -> None:
        code, report = check_in(tmp_path, "--update-lock")
        assert not [p for p in report["problems"] if "hello" in p or "greeter" in p], report["problems"]
        assert code == 0, report["problems"]
        warned = [w for w in report["warnings"] if w.startswith("budget: agent greeter")]
        assert warned and "[agents.greeter]" in warned[0]
        assert "greeter" in [row["agent"] for row in report["rows"]]  # measured all the same

    def test_the_lock_still_holds_a_third_party_domain(self, tmp_path: Path) -> None:
        code, report = check_in(tmp_path)
        assert code == 1
        assert any(p.startswith("lock: hello.greet is new") for p in report["problems"])


class TestExamplesAreValidatedByTheGate:
    """A declared example is only shape-checked when the domain is built; `facade check` (and
    the suite) validate it against the input model and name what is wrong."""

    def test_check_fails_on_an_example_its_model_refuses(self, tmp_path: Path) -> None:
        code, report = check_in(tmp_path, "--update-lock", also="tests.fixtures.bad_example_domain")
        assert code == 1
        assert [p for p in report["problems"] if p.startswith("example:")] == [
            "example: badexample.counter_add's example does not validate against CounterAdd: "
            "amount: Input should be a valid integer, unable to parse string as an integer"
        ]

    def test_every_bundled_example_validates(self) -> None:
        from facade.catalogue.discovery import discover
        from facade.kit.capability import example_problem

        registry = discover()
        assert len(registry) >= 400
        assert [p for c in registry if (p := example_problem(c))] == []


class TestFloorsForTheProjectsOwnDomains:
    """The tier floor still binds the domains shipped in the `domains` package."""

    def test_first_party_core_only_domain_fails(self) -> None:
        registry = Registry()
        registry.add_domain(core_only("ours"), first_party=True)
        registry.add_domain(core_only("theirs"), first_party=False)
        report = CheckReport()
        _floors(SimpleNamespace(registry=registry), Floors(capabilities=0, domains=0), report)  # type: ignore[arg-type]
        assert report.problems == ["floor: domain ours has only core capabilities; it needs both"]

    def test_discovery_marks_the_bundled_domains_first_party(self) -> None:
        from facade.catalogue.discovery import discover

        registry = discover(["tests.fixtures.notes_domain"])
        assert "notes" in registry.third_party and "projects" not in registry.third_party
